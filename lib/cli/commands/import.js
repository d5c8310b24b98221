'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { XpmError } = require('../../shared/errors')

// `xpm import [dump]`: the apps PM2 saved (`pm2 save` → $PM2_HOME/dump.pm2) start under xpm with
// the same names, instance counts, environment, log paths and states, and an equivalent
// ecosystem.config.js is written, so `xpm start ecosystem.config.js` gives the same apps later.
// PM2's files and processes are only read, never touched: the user stops PM2 when satisfied
// (docs/migrating-from-pm2.md).
async function importPm2 (ctx, { dump: given, options: opts }) {
  const { pm2Home, readDump, fromDump } = require('../import/pm2-dump')
  const { ecosystemText } = require('../import/write-ecosystem')
  const home = pm2Home(ctx.io.env)
  const dumpFile = path.resolve(given ?? path.join(home, 'dump.pm2'))
  const pm2Homes = [...new Set([home, path.dirname(dumpFile)])]
  if (pm2Homes.includes(ctx.io.paths().home)) {
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', `xpm's own folder would be PM2's (${ctx.io.paths().home}): set XPM_HOME to another folder (the default is ~/.xpm) so xpm never writes into PM2's`)
  }
  const { apps, notes, processes } = fromDump(readDump(dumpFile), { homes: pm2Homes, env: ctx.io.env })
  if (!apps.length) throw new XpmError('XPM_ERR_IMPORT_SOURCE', `the PM2 dump ${dumpFile} holds no apps to import${notes.length ? ` (${notes.map((n) => `${n.app}: ${n.what}`).join('; ')})` : ''}`, { details: { file: dumpFile } })

  const out = path.resolve(opts.out ?? 'ecosystem.config.js')
  const { kept, dropped } = checkApps(apps, path.dirname(out))
  for (const { app, reason } of dropped) notes.push({ app: app.name, what: `not carried over: ${reason}` })
  const header = [
    `Imported from ${dumpFile} by \`xpm import\` (${new Date().toISOString().slice(0, 10)}): PM2's apps, with PM2's keys.`,
    'Start them with `xpm start ecosystem.config.js`; every key is described in docs/ecosystem.md.',
    ...(notes.length ? ['', 'Not carried over as in PM2:', ...notes.map((n) => `  ${n.app}: ${n.what}`)] : [])
  ]
  const text = ecosystemText(kept, { header }) + droppedText(dropped)
  const log = (line) => { if (!opts.json) ctx.io.stderr.write(`[xpm] ${line}\n`) }
  log(`read ${apps.length} app${apps.length === 1 ? '' : 's'} (${processes} process${processes === 1 ? '' : 'es'}) from ${dumpFile}`)
  for (const n of notes) log(`${n.app}: ${n.what}`)

  if (opts.dryRun) {
    ctx.io.stdout.write(text)
    return
  }
  try {
    fs.writeFileSync(out, text, { flag: opts.force ? 'w' : 'wx', mode: 0o644 })
  } catch (err) {
    if (err.code === 'EEXIST') {
      throw new XpmError('XPM_ERR_FILE_EXISTS', `${out} already exists; not overwriting it (give --out <file>, or --force to replace it)`, { cause: err, details: { file: out } })
    }
    throw err
  }
  log(`wrote ${out}`)
  if (opts.start === false || !kept.length) {
    if (opts.json) ctx.io.printJson({ file: out, notes, started: [] })
    return finish(log)
  }
  const { resolveStart } = require('../../shared/config')
  const resolved = await resolveStart({ target: out, cwd: ctx.io.cwd(), env: ctx.io.env })
  for (const line of resolved.notices ?? []) log(`notice: ${line}`)
  const client = await ctx.connect()
  const { longRequest, progressPrinter } = require('../long-request')
  const results = await longRequest(client, 'start', { specs: resolved.specs }, { onProgress: progressPrinter({ json: opts.json, stream: ctx.io.stdout }) })
  const failures = []
  for (const r of results) {
    if (r.action !== 'started') log(`${r.name}: ${r.action}`)
    failures.push(...(r.failures || []).map((f) => ({ ...f, name: r.name })))
  }
  if (opts.json) ctx.io.printJson({ file: out, notes, started: results })
  else {
    const { renderList } = require('../render-list')
    ctx.io.stdout.write(renderList(await client.request('list'), ctx.io.tableOptions()))
  }
  finish(log)
  if (failures.length) {
    const first = failures[0]
    throw new XpmError('XPM_ERR_START_FAILED', `${failures.length} process(es) did not reach online: ${first.message}; see \`xpm logs ${first.name}\``, { details: failures })
  }
}

function finish (log) {
  log('PM2 and its files were not touched. Once xpm runs your apps as you want: `pm2 kill` (and `pm2 unstartup`, then `xpm startup`)')
}

// The apps the config model accepts (as `xpm start` of the written file will check them), and
// the others with the reason: an app whose script is gone cannot be carried over.
function checkApps (apps, baseDir) {
  const { normalizeApp } = require('../../shared/config')
  const kept = []
  const dropped = []
  for (const app of apps) {
    try {
      normalizeApp(app, { baseDir, env: process.env })
      kept.push(app)
    } catch (err) {
      if (!(err instanceof XpmError)) throw err
      dropped.push({ app, reason: err.message })
    }
  }
  return { kept, dropped }
}

// Apps left out, as comments at the end of the file: nothing of the setup is lost.
function droppedText (dropped) {
  if (!dropped.length) return ''
  const lines = ['', '// Left out (fix and move into apps above):']
  for (const { app, reason } of dropped) {
    lines.push(`// ${reason.split('\n')[0]}`)
    for (const line of JSON.stringify(app, null, 2).split('\n')) lines.push(`// ${line}`)
  }
  return lines.join('\n') + '\n'
}

module.exports = { importPm2 }
