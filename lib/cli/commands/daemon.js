'use strict'

const { homePaths } = require('../../paths')
const { isAlive } = require('../../pid')

async function ping (ctx) {
  const client = await ctx.connect()
  const res = await client.request('ping')
  process.stdout.write(`pong (daemon pid ${res.pid}, version ${res.version})\n`)
}

// Stops every app gracefully, then waits until the daemon process itself is gone.
async function kill (ctx) {
  let client
  try {
    client = await ctx.connect()
  } catch (err) {
    if (err.code === 'XPM_ERR_DAEMON_UNREACHABLE') {
      process.stdout.write('[xpm] no daemon running\n')
      return
    }
    throw err
  }
  const pid = client.hello.pid
  const closed = new Promise((resolve) => client.once('close', resolve))
  await client.request('kill', {}, { timeout: 10000 })
  await closed
  const deadline = Date.now() + 60000
  while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  if (isAlive(pid)) throw new Error(`the daemon (pid ${pid}) did not exit; see ${homePaths().daemonLog}`)
  process.stdout.write(`[xpm] daemon (pid ${pid}) stopped\n`)
}

module.exports = { ping, kill }

// `xpm report`: what a bug report needs: versions, the home, the daemon, the processes.
async function report (ctx) {
  const client = await ctx.connect()
  const res = await client.request('ping')
  const { LIST_FIELDS, renderList } = require('../render-list')
  const rows = await client.request('list', { fields: LIST_FIELDS })
  const { formatUptime } = require('../../quantity')
  const counts = {}
  for (const p of rows) counts[p.status] = (counts[p.status] ?? 0) + 1
  const lines = [
    ['xpm (CLI)', require('../../../package.json').version],
    ['xpm (daemon)', `${res.version}, pid ${res.pid}, up ${formatUptime(res.uptime)}`],
    ['node', `${process.version} (${process.execPath})`],
    ['platform', `${process.platform} ${process.arch}`],
    ['XPM_HOME', homePaths().home],
    ['apps', `${new Set(rows.map((p) => p.name)).size}, processes ${rows.length}${Object.keys(counts).length ? ` (${Object.entries(counts).map(([s, n]) => `${n} ${s}`).join(', ')})` : ''}`],
    ['daemon log', homePaths().daemonLog]
  ]
  const width = Math.max(...lines.map(([k]) => k.length))
  process.stdout.write(lines.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n') + '\n')
  process.stdout.write(renderList(rows))
}

async function examples () {
  process.stdout.write(`  xpm start app.js -i max --name api        # one worker per CPU, cluster mode
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
