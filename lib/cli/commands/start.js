'use strict'

const { XpmError } = require('../../errors')
const { printJson } = require('../run')
const { renderList } = require('../render-list')

async function start (ctx) {
  const [target, opts, command] = ctx.args
  const { resolveStart } = require('../../config')
  const resolved = await resolveStart({
    target,
    flags: opts,
    scriptArgs: command.args.slice(1),
    cwd: process.cwd(),
    env: process.env,
    only: opts.only,
    envName: opts.env
  })
  const client = await ctx.connect()
  let failures = []
  if (resolved.kind === 'name') {
    const result = await client.request('startTarget', { target }, { timeout: 60000 })
    failures = result.failures
  } else {
    const timeout = Math.max(...resolved.specs.map((s) => s.listenTimeout || 8000)) + 30000
    const results = await client.request('start', { specs: resolved.specs, force: opts.force === true }, { timeout })
    for (const r of results) {
      if (!opts.json && r.action !== 'started') process.stdout.write(`[xpm] ${r.name}: ${r.action}${r.action === 'already running' ? ' (nothing started; use `xpm restart` or `xpm reload` to apply changes, or -f to replace it)' : ''}\n`)
      failures.push(...(r.failures || []).map((f) => ({ ...f, name: r.name })))
    }
  }
  const list = await client.request('list')
  if (opts.json) printJson(list)
  else process.stdout.write(renderList(list))
  if (failures.length) {
    const first = failures[0]
    if (first.stderr?.length) process.stderr.write(`[xpm] last lines of ${first.name ?? target}[${first.instance}] on stderr:\n${first.stderr.map((l) => '  ' + l).join('\n')}\n`)
    throw new XpmError('XPM_ERR_START_FAILED',
      `${failures.length} process(es) did not reach online: ${first.message}; see \`xpm logs ${first.name ?? target}\``,
      { details: failures })
  }
}

module.exports = { start }
