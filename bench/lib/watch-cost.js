'use strict'

const path = require('node:path')
const { cpuMs, delay } = require('./util')

// Issue 27: the daemon's CPU while a dashboard watches some processes against all of them. A
// client of the real socket subscribes to the processes topic: with the ids of `shown` processes
// (what a terminal shows) and `changes: true`, as `xpm monit` and `xpm web` do now (the others
// pushed as summary rows only when they change: `some`); with the same ids but the whole list
// pushed after every round, as they did before (`someLists`); or without ids (every process in
// full, whole lists: `all`). Windows alternate (some, someLists, all, …), each read over `seconds`
// after SETTLE_MS (the agents switching their interval). xpm only: PM2 has no such subscription.
const SETTLE_MS = 2000
const LEASE_MS = 11000
const KINDS = {
  some: (ids) => ({ ids, changes: true }),
  someLists: (ids) => ({ ids }),
  all: () => ({})
}

async function watchCost (xpm, { root, shown = 10, rounds = 2, seconds = 10 }) {
  const { connectOnce } = require(path.join(root, 'lib', 'cli', 'client'))
  const socket = path.join(xpm.home, 'daemon.sock')
  const daemon = xpm.daemonPid()
  const ids = (await xpm.jlist()).map((p) => p.id).sort((a, b) => a - b).slice(0, shown)
  await delay(LEASE_MS) // a `jlist` samples every process at the full rate for the next 10 s
  const out = { some: [], someLists: [], all: [] }
  for (let round = 0; round < rounds; round++) {
    for (const [kind, params] of Object.entries(KINDS)) {
      const client = await connectOnce(socket)
      try {
        await client.request('subscribe', { topics: ['processes'], ...params(ids) })
        await delay(SETTLE_MS)
        const c0 = cpuMs(daemon)
        const t0 = performance.now()
        await delay(seconds * 1000)
        out[kind].push((cpuMs(daemon) - c0) / (performance.now() - t0) * 100)
      } finally {
        client.close()
      }
      await delay(SETTLE_MS) // the agents back on the idle schedule
    }
  }
  return out
}

module.exports = { watchCost }
