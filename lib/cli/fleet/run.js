'use strict'

// A command with --host/--hosts: the hosts resolved (hosts.js), one ssh connection each
// (index.js), the command run against each host's daemon, the outputs put together. Partial
// results are results: a host that cannot be reached, or drops, is named with its reason on
// stderr (and marked in --json), the others' output is printed, and the exit status is 1.
const { XpmError } = require('../../shared/errors')
const { runOne, summarize, jsonOf } = require('./each-host')

async function runOnHosts (name, action, ctx, rest, options) {
  const { io } = ctx
  refuseLocalFiles(name, ctx, rest)
  if (options.updateEnv) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `${name} --host/--hosts: --update-env would give the apps on the hosts this machine's environment; refused`)
  const { resolveHosts, openFleet } = require('./index')
  const hosts = await resolveHosts(options, { cwd: io.cwd(), home: io.paths().home })
  const fleet = await openFleet(hosts, { env: io.env })
  try {
    if (name === 'list' && !options.json) return await require('./list').table(fleet, ctx, options)
    if (['list', 'jlist', 'prettylist'].includes(name)) return await require('./list').json(name, action, fleet, ctx, rest)
    if (name === 'logs') return await require('./logs').logs(fleet, ctx, rest, options)
    if (name === 'reload') return await require('./rollout').rollout(action, fleet, ctx, rest, options)
    return await sections(action, fleet, ctx, rest, options)
  } finally {
    fleet.close()
  }
}

// Every host at once, each host's output under its name (or one JSON document with --json).
async function sections (action, fleet, ctx, rest, options) {
  const { io } = ctx
  const results = await Promise.all(fleet.hosts.map((e) => runOne(e, action, ctx, rest)))
  if (options.json) {
    io.printJson({ hosts: results.map(jsonOf) })
  } else {
    for (const r of results) {
      if (!r.out.length && !r.err.length) continue
      io.stdout.write(`── ${r.label} ──\n${r.out.map((l) => l + '\n').join('')}`)
      for (const line of r.err) io.stderr.write(`${r.label} | ${line}\n`)
    }
  }
  return summarize(results, io)
}

// A file or script given to a fleet command would be read here, on this machine; its paths mean
// nothing on the hosts. Fleet commands take app names, ids, namespaces, /regex/ or all.
function refuseLocalFiles (name, ctx, rest) {
  const input = rest[0]
  const values = Object.entries(input || {}).filter(([k]) => k !== 'options' && k !== 'scriptArgs').map(([, v]) => v)
  const { isFileArg } = require('../deploy/config')
  if (name === 'start' && !values.flat().some((v) => typeof v === 'string')) {
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', 'start --host/--hosts takes the names of apps the hosts know (the ecosystem file here means nothing on the hosts; `xpm deploy` ships it)')
  }
  for (const v of values.flat()) {
    if (v === '-') throw new XpmError('XPM_ERR_BAD_ARGUMENT', `${name} --host/--hosts does not read apps from standard input: their scripts and paths are this machine's (\`xpm deploy\` ships files)`)
    if (typeof v !== 'string' || /^\/.+\/[a-z]*$/.test(v)) continue
    if (isFileArg(v) || /[/\\]/.test(v) || /\.[cm]?js$/.test(v)) {
      throw new XpmError('XPM_ERR_BAD_ARGUMENT', `${name} --host/--hosts takes apps by name, id, namespace, /regex/ or all, not "${v}" (a file here means nothing on the hosts; \`xpm deploy\` ships files)`)
    }
  }
}

module.exports = { runOnHosts, refuseLocalFiles }
