'use strict'

// Run as a program by test/integration/reuse-port.test.js, inside `unshare -rn` where it can (a
// user and network namespace of its own, net.ipv4.tcp_migrate_req set to 0 there): starts a
// 2-worker reuse_port app in XPM_HOME (the test's home: the test cleans up by pid), reloads it
// twice under load, and prints what it saw as one line of JSON.
const { runXpm, fixture, waitFor, freePort, httpGet } = require('./xpm')
const { startLoad } = require('./load')

async function main () {
  const env = { ...process.env, FORCE_COLOR: '0' }
  const xpm = (args, extra = {}) => runXpm(args, { env: { ...env, ...extra } })
  const jlist = async () => JSON.parse((await xpm(['jlist'])).stdout)
  const port = await freePort()
  const start = await xpm(['start', fixture('echo-http.js'), '-i', '2', '--reuse-port', '--name', 'api'], { PORT: String(port) })
  if (start.code !== 0) throw new Error(`start failed: ${start.stderr}`)
  await waitFor(async () => (await httpGet(port)).status === 200)
  const before = (await jlist()).map((p) => p.pid)
  const fresh = startLoad(port, { concurrency: 8, keepAlive: false })
  const kept = startLoad(port, { concurrency: 4, keepAlive: true })
  await waitFor(() => fresh.stats.ok > 20 && kept.stats.ok > 20)
  const reloads = []
  for (let i = 0; i < 2; i++) reloads.push((await xpm(['reload', 'api'])).code)
  await waitFor(() => fresh.stats.ok > 100)
  const [a, b] = [await fresh.stop(), await kept.stop()]
  const after = await jlist()
  const stats = (s) => ({ ok: s.ok, failed: s.failed, errors: s.errors, pids: [...s.pids] })
  process.stdout.write(JSON.stringify({ reloads, before, after: after.map((p) => ({ pid: p.pid, status: p.status })), fresh: stats(a), kept: stats(b) }) + '\n')
  await xpm(['kill'])
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`)
  process.exitCode = 1
})
