'use strict'

const http = require('node:http')
const WebSocket = require('ws') // puppeteer-core's, a dev dependency
const { delay } = require('../lib/util')

// The daemon's heap after a full GC, and what keeps its loop alive, read through its inspector:
// SIGUSR1 opens it (on 127.0.0.1:9229, Node's default; neither daemon traps the signal), one
// session forces a GC and reads process.memoryUsage() and getActiveResourcesInfo(), then the
// inspector is closed again (port free, nothing left running). Nothing is added to either
// daemon's code. One reading at a time (the port is shared): `lock` chains them.
const PORT = 9229
let lock = Promise.resolve()

function listTargets () {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: PORT, path: '/json/list', timeout: 2000 }, (res) => {
      let body = ''
      res.on('data', (d) => { body += d })
      res.on('end', () => { try { resolve(JSON.parse(body)) } catch (err) { reject(err) } })
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', reject)
  })
}

async function session (url, fn) {
  const ws = new WebSocket(url)
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
  let id = 0
  const pending = new Map()
  ws.on('message', (m) => {
    const msg = JSON.parse(m)
    pending.get(msg.id)?.(msg)
    pending.delete(msg.id)
  })
  const call = (method, params = {}) => new Promise((resolve, reject) => {
    pending.set(++id, (msg) => msg.error ? reject(new Error(msg.error.message)) : resolve(msg.result))
    ws.send(JSON.stringify({ id, method, params }))
  })
  try {
    return await fn(call)
  } finally {
    ws.close()
    await new Promise((resolve) => ws.once('close', resolve))
  }
}

const EXPRESSION = 'JSON.stringify({ pid: process.pid, mem: process.memoryUsage(), resources: process.getActiveResourcesInfo() })'
const CLOSE = "setTimeout(() => process.mainModule.require('node:inspector').close(), 200).unref(); 0"

// → { heapUsed, heapTotal, external, resources: { Timeout: n, … }, timers, handles } or null
async function readHeap (pid) {
  const mine = lock.then(() => once(pid))
  lock = mine.catch(() => {})
  return mine
}

async function once (pid) {
  try { process.kill(pid, 'SIGUSR1') } catch { return null }
  let targets = null
  for (let i = 0; i < 50 && !targets; i++) targets = await listTargets().catch(() => delay(100).then(() => null))
  if (!targets?.length) return null
  const out = await session(targets[0].webSocketDebuggerUrl, async (call) => {
    const probe = async () => JSON.parse((await call('Runtime.evaluate', { expression: EXPRESSION, returnByValue: true })).result.value)
    if ((await probe()).pid !== pid) return null // another process holds the port
    await call('HeapProfiler.collectGarbage')
    await call('HeapProfiler.collectGarbage')
    const read = await probe()
    await call('Runtime.evaluate', { expression: CLOSE })
    return read
  })
  // the port is free once the inspector has closed (the daemon's setTimeout above)
  for (let i = 0; i < 50 && await listTargets().then(() => true, () => false); i++) await delay(100)
  if (!out) return null
  const resources = {}
  for (const type of out.resources) resources[type] = (resources[type] || 0) + 1
  return { heapUsed: out.mem.heapUsed, heapTotal: out.mem.heapTotal, external: out.mem.external, resources, timers: resources.Timeout || 0, handles: out.resources.length }
}

module.exports = { readHeap }
