'use strict'

// depends_on on a real daemon: a migration job (autorestart: false) must exit 0 before the API
// starts, the API must be ready (listening) before the web app starts; `xpm stop all` stops
// them the other way round, each once its dependents have exited.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, freePort, httpGet, waitFor } = require('../helpers/xpm')

// Every app appends what happens to it to EVENTS, with a timestamp.
const LOG = `
const fs = require('node:fs')
const note = (what) => fs.appendFileSync(process.env.EVENTS, Date.now() + ' ' + process.env.XPM_APP_NAME + ' ' + what + '\\n')
// a graceful stop: SIGINT (fork mode) or the primary's disconnect (cluster mode), then 300 ms
let stopping = false
const graceful = (server) => {
  const stop = () => {
    if (stopping) return
    stopping = true
    note('stop')
    server?.close()
    setTimeout(() => { note('exit'); process.exit(0) }, 300)
  }
  process.on('SIGINT', stop)
  require('node:cluster').worker?.on('disconnect', stop)
}
module.exports = { note, graceful }
`
const MIGRATE = `
const { note } = require('./log')
note('start')
setTimeout(() => { require('node:fs').writeFileSync(process.env.MARKER, 'migrated'); note('done'); process.exit(0) }, 800)
`
const API = `
const fs = require('node:fs')
const { note, graceful } = require('./log')
if (!fs.existsSync(process.env.MARKER)) { note('started before the migration'); process.exit(1) }
note('start')
const server = require('node:http').createServer((req, res) => res.end('api')).listen(Number(process.env.API_PORT))
graceful(server)
`
const WEB = `
const http = require('node:http')
const { note, graceful } = require('./log')
// the API must already answer when the web app boots
http.get({ host: '127.0.0.1', port: Number(process.env.API_PORT) }, (res) => {
  res.resume()
  note('start (api answered ' + res.statusCode + ')')
  const server = http.createServer((req, res) => res.end('web')).listen(Number(process.env.WEB_PORT))
  graceful(server)
}).on('error', (err) => { note('api not there: ' + err.code); process.exit(1) })
`

test('depends_on: the migration job exits 0 first, then the API starts, then the web app; stop all goes the other way', async (t) => {
  const h = createHome(t, { inProcess: true })
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir)
  const [apiPort, webPort] = [await freePort(), await freePort()]
  const events = path.join(dir, 'events.log')
  for (const [file, text] of Object.entries({ 'log.js': LOG, 'migrate.js': MIGRATE, 'api.js': API, 'web.js': WEB })) fs.writeFileSync(path.join(dir, file), text)
  const env = `{ EVENTS: ${JSON.stringify(events)}, MARKER: ${JSON.stringify(path.join(dir, 'migrated'))}, API_PORT: '${apiPort}', WEB_PORT: '${webPort}' }`
  // listed dependents first: the order comes from depends_on, not from the file
  fs.writeFileSync(path.join(dir, 'ecosystem.config.js'), `module.exports = { apps: [
    { name: 'web', script: './web.js', depends_on: ['api'], env: ${env}, kill_timeout: 3000 },
    { name: 'api', script: './api.js', instances: 2, depends_on: ['db-migrate'], env: ${env}, kill_timeout: 3000 },
    { name: 'db-migrate', script: './migrate.js', autorestart: false, env: ${env} }
  ] }`)

  const res = await h.run(['start', 'ecosystem.config.js'], { cwd: dir })
  assert.equal(res.code, 0, res.stderr + res.stdout)
  const lines = () => fs.readFileSync(events, 'utf8').trim().split('\n').map((l) => l.split(' ').slice(1).join(' '))
  // web is online once its entry has run; it notes its start when the API has answered
  await waitFor(() => lines().length >= 5)
  assert.deepEqual(lines(), ['db-migrate start', 'db-migrate done', 'api start', 'api start', 'web start (api answered 200)'])
  const list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.name, p.status]).sort(), [['api', 'online'], ['api', 'online'], ['db-migrate', 'stopped'], ['web', 'online']])
  assert.equal(list.find((p) => p.name === 'db-migrate').lastExit.code, 0)
  // it notes its start just before its listen() call: the port answers a moment later
  await waitFor(async () => (await httpGet(webPort)).body === 'web', { message: 'the web app answering' })

  // a cycle or an unknown name is a config error: nothing starts
  fs.writeFileSync(path.join(dir, 'bad.config.js'), `module.exports = { apps: [
    { name: 'a', script: './api.js', depends_on: ['b'] }, { name: 'b', script: './api.js', depends_on: 'a' }
  ] }`)
  const bad = await h.run(['start', 'bad.config.js'], { cwd: dir })
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /depends_on goes round in a circle in .*bad\.config\.js: a → b → a \[XPM_ERR_CONFIG_INVALID\]/)

  // stop all: web first, the API once web has exited
  fs.writeFileSync(events, '')
  const stopped = await h.run(['stop', 'all'])
  assert.equal(stopped.code, 0, stopped.stderr)
  const order = lines()
  assert.equal(order.length, 6, order.join('\n'))
  assert.deepEqual(order.slice(0, 2), ['web stop', 'web exit'], order.join('\n'))
  assert.deepEqual(order.slice(2).map((l) => l.split(' ')[0]), ['api', 'api', 'api', 'api'])
})
