'use strict'

const { XpmError } = require('../../shared/errors')

// `xpm resurrect`: starts the apps of the last `xpm save` with their specs, instance counts and
// online/stopped states. Apps the daemon already has are left alone, never duplicated.
async function resurrect (ctx, { options: opts }) {
  const client = await ctx.connect()
  const res = await client.request('resurrect', {}, { timeout: 10 * 60 * 1000 })
  if (opts.json) ctx.io.printJson(res)
  if (res.missing) {
    ctx.io.stderr.write(`[xpm] nothing to resurrect: ${res.file} does not exist (run \`xpm save\` first)\n`)
    return
  }
  if (!opts.json) {
    for (const r of res.results) ctx.io.stdout.write(`[xpm] ${describe(r)}\n`)
    ctx.io.stdout.write(require('../render-list').renderList(await client.request('list'), ctx.io.tableOptions()))
  }
  const failures = res.results.flatMap((r) => (r.failures || []).map((f) => ({ ...f, name: r.name })))
  // a damaged dump.pm2: the older dump.pm2.bak was used; said on stderr, exit 0 as PM2 (docs/persistence.md)
  if (res.damaged) ctx.io.stderr.write(`[xpm] warning: ${res.damaged.message} [XPM_ERR_DUMP_DAMAGED]\n`)
  if (failures.length) {
    throw new XpmError('XPM_ERR_START_FAILED', `${failures.length} process(es) did not reach online: ${failures[0].message}; see \`xpm logs ${failures[0].name}\``, { details: failures })
  }
}

function describe (r) {
  if (r.action === 'restored') return `${r.name}: restored (${r.online} online${r.stopped ? `, ${r.stopped} stopped` : ''})`
  if (r.action === 'already running') return `${r.name}: already managed by the daemon, left as it is`
  return `${r.name}: ${r.action}${r.reason ? ` – ${r.reason}` : ''}`
}

module.exports = { resurrect, describe }
