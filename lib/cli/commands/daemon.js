'use strict'

const { waitPidGone } = require('../../shared/pid')
const { XpmError } = require('../../shared/errors')

async function ping (ctx) {
  const client = await ctx.connect()
  const res = await client.request('ping')
  ctx.io.stdout.write(`pong (daemon pid ${res.pid}, version ${res.version})\n`)
}

// Stops every app gracefully, then the daemon, and ends whatever still carries the home's tree
// tag. With a daemon that does not answer (crashed, stopped, its loop blocked) the apps are
// ended all the same: lib/cli/kill-home.js. Exits non-zero only when something is still running.
async function kill (ctx, { socketTimeout = 2000 } = {}) {
  const paths = ctx.io.paths()
  require('../../shared/safe-fs').ensureSafeHome(paths.home, { create: false })
  const answered = await killOverSocket(paths, socketTimeout)
  const { killHome } = require('../kill-home')
  const res = await killHome(paths, answered ? { findDaemon: async () => (answered.exited ? null : answered.pid) } : {})
  const out = (line) => ctx.io.stdout.write(`[xpm] ${line}\n`)
  const list = (pids) => pids.slice(0, 20).join(', ') + (pids.length > 20 ? ', …' : '')
  if (answered?.exited) out(`daemon (pid ${answered.pid}) stopped`)
  else if (res.daemon) {
    out(`the daemon (pid ${res.daemon.pid}) did not answer on ${paths.socket}; sent it SIGCONT and SIGTERM${res.daemon.signal === 'SIGKILL' ? ', then SIGKILL' : ''}`)
    if (!res.daemonAlive) out(`daemon (pid ${res.daemon.pid}) stopped`)
  } else out('no daemon running')
  if (res.ended.length) {
    const whose = answered?.exited ? 'left behind by the apps' : 'of apps the daemon no longer ran'
    out(`ended ${res.ended.length} process(es) ${whose} (this home's tree tag${res.killed.length ? `, ${res.killed.length} with SIGKILL` : ''}): ${list(res.ended)}`)
  }
  const still = [...(res.daemonAlive ? [`the daemon (pid ${res.daemon.pid})`] : []), ...(res.survived.length ? [`pid(s) ${list(res.survived)}`] : [])]
  if (still.length) {
    throw new XpmError('XPM_ERR_KILL_INCOMPLETE', `still running after SIGKILL: ${still.join(' and ')}`, { details: { daemon: res.daemonAlive ? res.daemon.pid : null, pids: res.survived } })
  }
}

// `kill` over the socket: → null when nobody answers within socketTimeout, else { pid, exited }.
async function killOverSocket (paths, socketTimeout) {
  const { connectOnce } = require('../client')
  let client
  try {
    client = await connectOnce(paths.socket, { timeout: socketTimeout })
  } catch {
    return null // nobody listens, or it does not say hello: the lock and pid tell the rest
  }
  const pid = client.hello.pid
  const closed = new Promise((resolve) => client.once('close', resolve))
  try {
    await client.request('kill', {}, { timeout: 10000 })
    await closed
  } catch (err) {
    // another `kill` is stopping the apps: wait for the same exit (the connection closes then)
    if (err.code === 'XPM_ERR_SHUTTING_DOWN') await closed
    else return { pid, exited: false } // it stopped answering: signals from here on
  } finally {
    client.close()
  }
  return { pid, exited: await waitPidGone(pid, { timeoutMs: 60000 }) }
}

module.exports = { ping, kill }

// `xpm report`: what a bug report needs: versions, the home, the daemon, the processes.
async function report (ctx) {
  const client = await ctx.connect()
  const res = await client.request('ping')
  const { LIST_FIELDS, renderList } = require('../render-list')
  const rows = await client.request('list', { fields: LIST_FIELDS })
  const { formatUptime } = require('../../shared/quantity')
  const counts = {}
  for (const p of rows) counts[p.status] = (counts[p.status] ?? 0) + 1
  const lines = [
    ['xpm (CLI)', require('../../../package.json').version],
    ['xpm (daemon)', `${res.version}, pid ${res.pid}, up ${formatUptime(res.uptime)}`],
    ['node', `${process.version} (${process.execPath})`],
    ['platform', `${process.platform} ${process.arch}`],
    ['XPM_HOME', ctx.io.paths().home],
    ['apps', `${new Set(rows.map((p) => p.name)).size}, processes ${rows.length}${Object.keys(counts).length ? ` (${Object.entries(counts).map(([s, n]) => `${n} ${s}`).join(', ')})` : ''}`],
    ['daemon log', ctx.io.paths().daemonLog]
  ]
  const width = Math.max(...lines.map(([k]) => k.length))
  ctx.io.stdout.write(lines.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n') + '\n')
  ctx.io.stdout.write(renderList(rows, ctx.io.tableOptions()))
}

async function examples (ctx) {
  ctx.io.stdout.write(`  xpm start app.js -i max --name api        # one worker per CPU, cluster mode
  xpm start a.js b.js c.js                  # three apps
  xpm start ecosystem.config.js --env production
  cat apps.json | xpm start -               # apps as JSON on standard input
  xpm startOrReload ecosystem.config.js     # deploy: start what is missing, reload the rest
  xpm restart api --update-env              # with the shell's environment
  xpm restart api --node-args="--max-old-space-size=512"
  xpm reload /^api-/                        # every app whose name matches
  xpm stop billing                          # an app, an id, a namespace, a script or all
  xpm logs api --lines 50 --err
  xpm ls --sort memory:desc
  xpm jlist --pm2                           # PM2's JSON shape, for monitoring scripts
  xpm save && xpm startup --install
`)
}

module.exports.report = report
module.exports.examples = examples
