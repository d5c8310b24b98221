'use strict'

const { XpmError } = require('../../errors')
const { printJson } = require('../run')
const { renderList } = require('../render-list')

// stop / restart / delete take an app name, a process id, "all", or an ecosystem file.
async function run (method, ctx) {
  const [target, opts] = ctx.args
  const { resolveTargets } = require('../../config')
  const resolved = await resolveTargets({ target, cwd: process.cwd(), only: opts.only, envName: opts.env, env: process.env, withSpecs: method === 'restart' })
  const client = await ctx.connect()
  const { longRequest, progressPrinter, printStillWorking, StillWorking } = require('../long-request')
  const onProgress = progressPrinter({ json: opts.json })
  const names = resolved.kind === 'ecosystem' ? resolved.names : [target]
  let results
  try {
    // every app at once: the daemon runs different apps in parallel
    results = await Promise.all(names.map((name) => method === 'restart' && (resolved.kind === 'ecosystem' || opts.updateEnv)
      ? restartWithSpec(client, name, resolved, opts, onProgress)
      : longRequest(client, method, { target: name }, { onProgress })))
  } catch (err) {
    if (!(err instanceof StillWorking)) throw err
    printStillWorking(names, err)
    return
  }
  const failures = results.flatMap((r) => r.failures || [])
  if (opts.json) printJson(results)
  else {
    const done = { stop: 'stopped', restart: 'restarted', delete: 'deleted' }[method]
    process.stdout.write(`[xpm] ${done} ${names.join(', ')}\n`)
    process.stdout.write(renderList(await client.request('list')))
  }
  if (failures.length) {
    throw new XpmError('XPM_ERR_START_FAILED', `${failures.length} process(es) did not come back online: ${failures[0].message}`, { details: failures })
  }
}

// A restart from an ecosystem file (or with --update-env) applies the new spec: -f start.
async function restartWithSpec (client, name, resolved, opts, onProgress) {
  const { longRequest } = require('../long-request')
  let spec = resolved.specs?.find((s) => s.name === name)
  if (!spec) {
    const [shown] = await client.request('show', { target: name })
    spec = { ...shown.spec }
  }
  if (opts.updateEnv) spec = { ...spec, env: { ...process.env } }
  const [result] = await longRequest(client, 'start', { specs: [spec], force: true }, { onProgress })
  return result
}

module.exports = {
  stop: (ctx) => run('stop', ctx),
  restart: (ctx) => run('restart', ctx),
  delete: (ctx) => run('delete', ctx)
}
