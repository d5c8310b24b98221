'use strict'

const path = require('node:path')
const { freePort, httpGet, waitFor } = require('./util')

const APPS = path.join(__dirname, '..', 'apps')
const HELLO = path.join(APPS, 'hello.js')
const CPU = path.join(APPS, 'cpu.js')
const SPEW = path.join(__dirname, '..', '..', 'test', 'fixtures', 'spew-lines.js')

function waitHttp (port, { timeout = 20000, interval = 10, differentFrom } = {}) {
  return waitFor(async () => {
    const body = await httpGet(port, { timeout: 1000 })
    return differentFrom === undefined || body !== differentFrom ? body || true : false
  }, { timeout, interval, message: `HTTP answer on port ${port}` })
}

// Starts `count` HTTP apps of `instances` workers each under one contender and waits until
// each answers. Resolves [{ name, port }].
async function startFleet (c, { prefix = 'app', count = 4, instances = 2, script = HELLO } = {}) {
  const apps = []
  for (let i = 0; i < count; i++) {
    const port = await freePort()
    const name = `${prefix}${i}`
    await c.start({ name, script, instances, env: { PORT: String(port) } })
    apps.push({ name, port })
  }
  for (const app of apps) await waitHttp(app.port)
  return apps
}

module.exports = { HELLO, CPU, SPEW, waitHttp, startFleet }
