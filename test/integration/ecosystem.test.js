'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, freePort, httpGet, fixture, waitFor, ROOT } = require('../helpers/xpm')

const ECHO = fixture('echo-http.js')

// Writes an ecosystem file into a fresh folder of the test's XPM_HOME.
function writeFile (h, name, text) {
  const dir = fs.mkdtempSync(path.join(h.home, 'eco-'))
  const file = path.join(dir, name)
  fs.writeFileSync(file, text)
  return file
}

test('.cjs, .mjs (export default) and .json files start their apps', async (t) => {
  const h = createHome(t, { inProcess: true })
  const [p1, p2, p3] = [await freePort(), await freePort(), await freePort()]
  const cjs = writeFile(h, 'ecosystem.config.cjs', `module.exports = { apps: [{ name: 'from-cjs', script: ${JSON.stringify(ECHO)}, instances: 2, env: { PORT: '${p1}' } }] }`)
  const mjs = writeFile(h, 'ecosystem.config.mjs', `export default { apps: [{ name: 'from-mjs', script: ${JSON.stringify(ECHO)}, env: { PORT: '${p2}' } }] }`)
  const json = writeFile(h, 'ecosystem.json', JSON.stringify({ apps: [{ name: 'from-json', script: ECHO, env: { PORT: String(p3) } }] }))
  for (const file of [cjs, mjs, json]) {
    const res = await h.run(['start', file])
    assert.equal(res.code, 0, res.stderr)
  }
  const list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.name, p.mode]), [['from-cjs', 'cluster'], ['from-cjs', 'cluster'], ['from-mjs', 'fork'], ['from-json', 'fork']])
  for (const port of [p1, p2, p3]) assert.equal((await httpGet(port)).status, 200)
})

test('--only and --env select apps and environments; env_file reaches the app', async (t) => {
  const h = createHome(t, { inProcess: true })
  const [pa, pb] = [await freePort(), await freePort()]
  const file = writeFile(h, 'ecosystem.config.js', `module.exports = { apps: [
    { name: 'a', script: ${JSON.stringify(ECHO)}, env: { PORT: '${pa}', STAGE: 'dev', KEEP: 'yes' }, env_production: { STAGE: 'prod' }, env_file: './app.env' },
    { name: 'b', script: ${JSON.stringify(ECHO)}, env: { PORT: '${pb}' } }
  ] }`)
  fs.writeFileSync(path.join(path.dirname(file), 'app.env'), 'FROM_FILE=dotenv-value\nSTAGE=from-env-file\n')
  const res = await h.run(['start', file, '--only', 'a', '--env', 'production'])
  assert.equal(res.code, 0, res.stderr)
  assert.deepEqual((await h.jlist()).map((p) => p.name), ['a'])
  const { env } = (await httpGet(pa)).json
  assert.equal(env.STAGE, 'prod')
  assert.equal(env.KEEP, 'yes')
  assert.equal(env.FROM_FILE, 'dotenv-value')
})

test('starting the same file twice restarts its apps with the file as it is now (PM2 smart start), one set of processes', async (t) => {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  const file = writeFile(h, 'ecosystem.config.js', `module.exports = { apps: [{ name: 'twice', script: ${JSON.stringify(ECHO)}, instances: 2, env: { PORT: '${port}' } }] }`)
  assert.equal((await h.run(['start', file])).code, 0)
  const pids = (await h.jlist()).map((p) => p.pid)
  const again = await h.run(['start', file])
  assert.equal(again.code, 0, again.stderr)
  assert.match(again.stdout, /twice: restarted/)
  const after = await h.jlist()
  assert.equal(after.length, 2)
  assert.ok(after.every((p) => !pids.includes(p.pid) && p.restarts === 1 && p.status === 'online'), JSON.stringify(after))
})

test('a misspelled key exits 2 with the suggestion and starts nothing; a .json with JavaScript is rejected, not run', async (t) => {
  const h = createHome(t, { inProcess: true })
  const typo = writeFile(h, 'ecosystem.config.js', `module.exports = { apps: [{ name: 'api', script: ${JSON.stringify(ECHO)}, kill_timout: '3s' }] }`)
  const res = await h.run(['start', typo])
  assert.equal(res.code, 2)
  assert.match(res.stderr, /unknown option "kill_timout" in app "api" — did you mean "kill_timeout"\?/)
  assert.equal(h.daemonPid(), 0, 'no daemon was even started')

  const marker = path.join(h.home, 'executed')
  const evil = writeFile(h, 'ecosystem.json', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'); module.exports = { apps: [] }`)
  const bad = await h.run(['start', evil])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /XPM_ERR_CONFIG_LOAD/)
  assert.ok(!fs.existsSync(marker))
})

test('reload and restart from the file apply a changed env value; stop and delete act on the file\'s apps', async (t) => {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  const text = (v) => `module.exports = { apps: [{ name: 'api', script: ${JSON.stringify(ECHO)}, instances: 2, env: { PORT: '${port}', FEATURE: '${v}' } }] }`
  const file = writeFile(h, 'ecosystem.config.js', text('one'))
  assert.equal((await h.run(['start', file])).code, 0)
  assert.equal((await httpGet(port)).json.env.FEATURE, 'one')
  fs.writeFileSync(file, text('two'))
  const reload = await h.run(['reload', file])
  assert.equal(reload.code, 0, reload.stderr)
  for (let i = 0; i < 4; i++) assert.equal((await httpGet(port)).json.env.FEATURE, 'two')
  fs.writeFileSync(file, text('three'))
  assert.equal((await h.run(['restart', file])).code, 0)
  await waitFor(async () => (await httpGet(port)).json.env.FEATURE === 'three')
  assert.equal((await h.run(['stop', file])).code, 0)
  assert.ok((await h.jlist()).every((p) => p.status === 'stopped'))
  assert.equal((await h.run(['delete', file])).code, 0)
  assert.deepEqual(await h.jlist(), [])
})

test('xpm ecosystem writes a commented starter file; `init` over one keeps it aside and exits 0, as PM2 (cli-actions-1)', async (t) => {
  const h = createHome(t, { inProcess: true })
  const dir = fs.mkdtempSync(path.join(h.home, 'init-'))
  const res = await h.run(['ecosystem'], { cwd: dir })
  assert.equal(res.code, 0, res.stderr)
  const file = path.join(dir, 'ecosystem.config.js')
  fs.writeFileSync(file, '// mine\n')
  const again = await h.run(['init', 'echo'], { cwd: dir }) // PM2's e2e: `pm2 init echo`
  assert.equal(again.code, 0, again.stderr)
  const kept = fs.readdirSync(dir).filter((f) => f.startsWith('ecosystem.config.js.bak-'))
  assert.equal(kept.length, 1)
  assert.equal(fs.readFileSync(path.join(dir, kept[0]), 'utf8'), '// mine\n')
  assert.match(again.stdout, new RegExp(`existed: kept as .*${kept[0].replace(/\./g, '\\.')}`))
  assert.match(fs.readFileSync(file, 'utf8'), /module\.exports = \{/)
})

test('ecosystem.example.js runs as it is: a cluster app and a fork app, and env_production', async (t) => {
  const h = createHome(t) // the file reads process.env.PORT: the CLI's own process
  const port = await freePort()
  const res = await h.run(['start', path.join(ROOT, 'ecosystem.example.js'), '--env', 'production'], { env: { PORT: String(port) } })
  assert.equal(res.code, 0, res.stderr)
  const list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.name, p.mode, p.status]), [['hello', 'cluster', 'online'], ['hello', 'cluster', 'online'], ['ticker', 'fork', 'online']])
  const { json } = await httpGet(port)
  assert.match(json.message, /production/)
})

test('a file naming a missing script starts its other apps and reports the missing one, as PM2 (its e2e cli/ecosystem.e2e)', async (t) => {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  const file = writeFile(h, 'ecosystem.config.js', `module.exports = { apps: [
    { name: 'good', script: ${JSON.stringify(ECHO)}, env: { PORT: '${port}' } },
    { name: 'bad', script: './not-here.js' },
    { name: 'worse', script: './nor-here.js' }
  ] }`)
  const res = await h.run(['start', file])
  assert.equal(res.code, 2)
  assert.match(res.stderr, /script "\.\/not-here\.js" in app "bad" not found: .*not-here\.js does not exist \[XPM_ERR_SCRIPT_NOT_FOUND\]/)
  assert.match(res.stderr, /script "\.\/nor-here\.js" in app "worse" not found/)
  assert.deepEqual((await h.jlist()).map((p) => [p.name, p.status]), [['good', 'online']])
  assert.equal((await httpGet(port)).status, 200)
  // an app that waits for a missing one (depends_on) would never start: nothing is done then
  const chained = writeFile(h, 'ecosystem.config.js', `module.exports = { apps: [
    { name: 'after', script: ${JSON.stringify(ECHO)}, depends_on: ['first'] },
    { name: 'first', script: './not-here.js' }
  ] }`)
  const refused = await h.run(['start', chained])
  assert.equal(refused.code, 2)
  assert.deepEqual((await h.jlist()).map((p) => p.name), ['good'])
})
