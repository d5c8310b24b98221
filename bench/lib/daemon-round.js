'use strict'

const fs = require('node:fs')
const { isAlive, kill, waitFor } = require('./util')

// What a bench round with a contender's own daemon in a fresh home does around its reading
// (daemon-rss.js, idle-after-list.js). cli(...args) runs the contender's CLI; c.online(row) says
// whether a `jlist` row is online.

// Polls `jlist` until `count` processes are online. onPids hears each poll's pids, so a round
// that fails here still ends what came up.
function waitOnline (cli, c, count, onPids) {
  return waitFor(async () => {
    const pids = JSON.parse((await cli('jlist')).stdout).filter((r) => c.online(r) && r.pid > 0).map((r) => r.pid)
    onPids(pids)
    return pids.length >= count
  }, { timeout: 180000, interval: 500, message: `${count} processes online under ${c.name}` })
}

// Ends the daemon with its own `kill`, then by pid whatever of it and its processes is left, and
// removes the home.
async function endRound (cli, { home, daemon, pids }) {
  await cli('kill').catch(() => {})
  await waitFor(() => !isAlive(daemon) && pids.every((pid) => !isAlive(pid)), { timeout: 30000, interval: 100 }).catch(() => {})
  for (const pid of [daemon, ...pids]) if (isAlive(pid)) kill(pid)
  fs.rmSync(home, { recursive: true, force: true })
}

module.exports = { waitOnline, endRound }
