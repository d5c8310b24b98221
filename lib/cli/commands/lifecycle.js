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
  const names = resolved.kind === 'ecosystem' ? resolved.names : [target]
  const results = []
  for (const name of names) {
    if (method === 'restart' && (resolved.kind === 'ecosystem' || opts.updateEnv)) {
      results.push(await restartWithSpec(client, name, resolved, opts))
      continue
    }
    results.push(await client.request(method, { target: name }, { timeout: 120000 }))
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
async function restartWithSpec (client, name, resolved, opts) {
  let spec = resolved.specs?.find((s) => s.name === name)
  if (!spec) {
    const [shown] = await client.request('show', { target: name })
    spec = { ...shown.spec }
  }
  if (opts.updateEnv) spec = { ...spec, env: { ...process.env } }
  const [result] = await client.request('start', { specs: [spec], force: true }, { timeout: 120000 })
  return result
}

module.exports = {
  stop: (ctx) => run('stop', ctx),
  restart: (ctx) => run('restart', ctx),
  delete: (ctx) => run('delete', ctx)
}
