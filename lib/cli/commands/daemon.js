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
