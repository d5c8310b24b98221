'use strict'

// A stand-in daemon client for the 1,000-process screenshot only (every other web test uses a
// real daemon): the same methods and pushes as lib/cli/client.js gives the web server, with figures
// from a seeded generator, one `processes` push a second while subscribed.

const { EventEmitter } = require('node:events')

function generator (seed) {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

const NAMES = ['api', 'web', 'worker', 'billing', 'search', 'mailer', 'auth', 'images', 'cron', 'gateway']

function fakeProcesses (count, rand) {
  const list = []
  for (let id = 0; id < count; id++) {
    const app = NAMES[id % NAMES.length] + '-' + Math.floor(id / (NAMES.length * 25))
    const status = id % 97 === 13 ? 'errored' : id % 61 === 7 ? 'stopped' : id % 149 === 3 ? 'launching' : 'online'
    const online = status === 'online'
    list.push({
      id,
      name: app,
      namespace: id % 3 === 0 ? 'payments' : 'default',
      instance: Math.floor(id / NAMES.length) % 25,
      mode: id % 4 === 0 ? 'fork' : 'cluster',
      pid: online ? 10000 + id : null,
      status,
      ready: online ? id % 53 !== 5 : null,
      restarts: Math.floor(rand() * rand() * 6),
      uptime: online ? 60000 + Math.floor(rand() * 86400000) : 0,
      cpu: online ? Math.round(rand() * rand() * 800) / 10 : 0,
      memory: online ? Math.floor((40 + rand() * 160) * 1048576) : 0,
      metrics: online ? { heapUsed: Math.floor((8 + rand() * 60) * 1048576), heapTotal: 96 * 1048576, elP99: 1 + rand() * rand() * 40 } : {}
    })
  }
  return list
}

function createFakeDaemon ({ count = 1000, seed = 42, intervalMs = 1000 } = {}) {
  const rand = generator(seed)
  let list = fakeProcesses(count, rand)
  const step = () => {
    list = list.map((p) => p.status !== 'online'
      ? p
      : {
          ...p,
          uptime: p.uptime + intervalMs,
          cpu: Math.max(0, Math.round((p.cpu + (rand() - 0.5) * 8) * 10) / 10),
          memory: Math.max(20 * 1048576, p.memory + Math.floor((rand() - 0.5) * 4 * 1048576)),
          metrics: { ...p.metrics, heapUsed: Math.max(4 * 1048576, p.metrics.heapUsed + Math.floor((rand() - 0.5) * 2 * 1048576)), elP99: Math.max(0.5, p.metrics.elP99 + (rand() - 0.5) * 3) }
        })
  }
  const history = () => {
    const out = {}
    const now = Date.now()
    for (const p of list.slice(0, 20)) {
      const points = []
      let cpu = p.cpu
      let memory = p.memory
      let heap = p.metrics.heapUsed ?? 0
      let el = p.metrics.elP99 ?? 0
      for (let i = 119; i >= 0; i--) {
        cpu = Math.max(0, cpu + (rand() - 0.5) * 6)
        memory = Math.max(20 * 1048576, memory + (rand() - 0.5) * 3 * 1048576)
        heap = Math.max(4 * 1048576, heap + (rand() - 0.5) * 2 * 1048576)
        el = Math.max(0.5, el + (rand() - 0.5) * 2)
        points.push({ at: now - i * 1000, cpu, memory, heapUsed: heap, elP99: el })
      }
      out[p.id] = points
    }
    return out
  }
  const connect = async () => {
    const client = new EventEmitter()
    let timer = null
    client.request = async (method, params = {}) => {
      if (method === 'subscribe') {
        timer = setInterval(() => {
          step()
          client.emit('event', { event: 'processes', data: list })
        }, intervalMs)
        return { processes: list, history: history() }
      }
      if (method === 'logs') {
        const lines = []
        for (let i = 0; i < 40; i++) {
          const err = i % 7 === 3
          lines.push({ id: 0, app: list[0].name, instance: 0, stream: err ? 'err' : 'out', time: Date.now() - (40 - i) * 500, line: err ? `warn: slow query ${Math.round(rand() * 900)} ms on orders` : `GET /api/orders/${Math.floor(rand() * 10000)} 200 ${Math.round(rand() * 40)} ms` })
        }
        return { lines }
      }
      if (method === 'why') return { apps: [params.target], entries: [] }
      if (method === 'list' || method === 'show') return list
      throw new Error(`the fake daemon does not answer ${method}`)
    }
    client.close = () => {
      clearInterval(timer)
      client.emit('close')
    }
    return client
  }
  return { connect }
}

module.exports = { createFakeDaemon }
