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
  const { longRequest, progressPrinter, printStillWorking, StillWorking } = require('../long-request')
  const onProgress = progressPrinter({ json: opts.json })
  let failures = []
  try {
    if (resolved.kind === 'name') {
      const result = await longRequest(client, 'startTarget', { target }, { onProgress })
      failures = result.failures
    } else {
      const results = await longRequest(client, 'start', { specs: resolved.specs, force: opts.force === true }, { onProgress })
      failures = reportStarted(results, opts)
    }
  } catch (err) {
    if (!(err instanceof StillWorking)) throw err
    printStillWorking(resolved.kind === 'name' ? [target] : resolved.specs.map((s) => s.name), err)
    return
  }
  const list = await client.request('list')
  if (opts.json) printJson(list)
  else process.stdout.write(renderList(list))
  if (failures.length) {
    const first = failures[0]
    if (first.stderr?.length) process.stderr.write(`[xpm] last lines of ${first.name ?? target}[${first.instance}] on stderr:\n${first.stderr.map((l) => '  ' + l).join('\n')}\n`)
    throw new XpmError(first.code === 'XPM_ERR_CANCELLED' ? 'XPM_ERR_CANCELLED' : 'XPM_ERR_START_FAILED',
      `${failures.length} process(es) did not reach online: ${first.message}${first.code === 'XPM_ERR_CANCELLED' ? '' : `; see \`xpm logs ${first.name ?? target}\``}`,
      { details: failures })
  }
}

function reportStarted (results, opts) {
  const failures = []
  for (const r of results) {
    if (!opts.json && r.action !== 'started') process.stdout.write(`[xpm] ${r.name}: ${r.action}${r.action === 'already running' ? ' (nothing started; use `xpm restart` or `xpm reload` to apply changes, or -f to replace it)' : ''}\n`)
    failures.push(...(r.failures || []).map((f) => ({ ...f, name: r.name })))
  }
  return failures
}

module.exports = { start }
