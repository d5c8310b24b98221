'use strict'

// `xpm apply` on a real daemon: the first apply starts the file; a second does nothing; on a
// changed file --dry-run prints the plan, exits 3 and changes nothing; apply then reloads only
// the changed app (zero failed requests on the unchanged one, and on the changed one: a cluster
// reload), leaves the app no longer in the file alone, and --prune deletes it.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, freePort, httpGet, fixture } = require('../helpers/xpm')
const { startLoad } = require('../helpers/load')

function ecosystem (dir, { greeting, withOld = true, apiPort, webPort }) {
  const echo = JSON.stringify(fixture('echo-http.js'))
  const apps = [
    `{ name: 'api', script: ${echo}, instances: 2, env: { PORT: '${apiPort}', GREETING: '${greeting}' } }`,
    `{ name: 'web', script: ${echo}, instances: 2, env: { PORT: '${webPort}' } }`
  ]
  if (withOld) apps.push(`{ name: 'old', script: ${JSON.stringify(fixture('idle.js'))} }`)
  fs.writeFileSync(path.join(dir, 'ecosystem.config.js'), `module.exports = { apps: [\n  ${apps.join(',\n  ')}\n] }\n`)
}

test('apply: plan, start, idempotent, --dry-run changes nothing, only the changed app reloads with no failed request, --prune deletes', async (t) => {
  const h = createHome(t, { inProcess: true })
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir)
  const [apiPort, webPort] = [await freePort(), await freePort()]
  const apply = (...args) => h.run(['apply', 'ecosystem.config.js', ...args], { cwd: dir })
  const pids = async () => Object.fromEntries((await h.jlist()).map((p) => [`${p.name}[${p.instance}]`, p.pid]))

  ecosystem(dir, { greeting: 'hello', apiPort, webPort })
  let dry = await apply('--dry-run')
  assert.equal(dry.code, 3, dry.stderr)
  assert.match(dry.stdout, /^│ start +│ api +│ new +│$/m)
  let res = await apply()
  assert.equal(res.code, 0, res.stderr + res.stdout)
  assert.match(res.stdout, /^\[xpm\] 3 to start$/m)
  assert.deepEqual((await h.jlist()).map((p) => [p.name, p.status]), [['api', 'online'], ['api', 'online'], ['web', 'online'], ['web', 'online'], ['old', 'online']])

  // idempotent
  res = await apply()
  assert.equal(res.code, 0, res.stderr)
  assert.match(res.stdout, /^\[xpm\] nothing to change \(3 to leave alone\)$/m)
  assert.equal((await apply('--dry-run')).code, 0)

  // the file changes: api's environment, and `old` is gone from it
  ecosystem(dir, { greeting: 'bonjour', withOld: false, apiPort, webPort })
  const before = await pids()
  dry = await apply('--dry-run')
  assert.equal(dry.code, 3, dry.stderr)
  assert.match(dry.stdout, /^│ reload +│ api +│ changed: env\.GREETING +│$/m)
  assert.match(dry.stdout, /^│ leave alone │ web +│ +│$/m)
  assert.match(dry.stdout, /^│ leave alone │ old +│ not in the file; --prune would delete it +│$/m)
  assert.deepEqual(await pids(), before, '--dry-run changed nothing')
  assert.equal((await httpGet(apiPort)).json.env.GREETING, 'hello')

  const webLoad = startLoad(webPort, { concurrency: 4 })
  const apiLoad = startLoad(apiPort, { concurrency: 4 })
  t.after(() => Promise.all([webLoad.stop(), apiLoad.stop()]))
  await waitFor(() => webLoad.stats.ok > 20 && apiLoad.stats.ok > 20, { message: 'load on both apps' })
  res = await apply()
  assert.equal(res.code, 0, res.stderr + res.stdout)
  assert.match(res.stdout, /^│ reload +│ api +│ changed: env\.GREETING +│$/m)
  assert.match(res.stdout, /reloading api \(2 instances, cluster mode\)/)
  assert.doesNotMatch(res.stdout, /reloading web/)
  await waitFor(() => webLoad.stats.ok > 100 && apiLoad.stats.ok > 100, { message: 'requests after the apply' })
  const [web, api] = [await webLoad.stop(), await apiLoad.stop()]
  assert.equal(web.failed, 0, `unchanged app: ${JSON.stringify(web.errors)}`)
  assert.equal(api.failed, 0, `reloaded app: ${JSON.stringify(api.errors)}`)
  const after = await pids()
  assert.equal(after['web[0]'], before['web[0]'])
  assert.equal(after['web[1]'], before['web[1]'])
  assert.equal(after['old[0]'], before['old[0]'], 'not in the file, no --prune: left alone')
  assert.notEqual(after['api[0]'], before['api[0]'])
  assert.notEqual(after['api[1]'], before['api[1]'])
  assert.equal((await httpGet(apiPort)).json.env.GREETING, 'bonjour')

  // --prune deletes the app the file no longer names; then nothing is left to do
  res = await apply('--prune')
  assert.equal(res.code, 0, res.stderr + res.stdout)
  assert.match(res.stdout, /^│ delete +│ old +│ not in the file \(--prune\) +│$/m)
  assert.deepEqual([...new Set((await h.jlist()).map((p) => p.name))], ['api', 'web'])
  res = await apply('--prune', '--json')
  assert.equal(res.code, 0, res.stderr)
  assert.equal(JSON.parse(res.stdout).changes, 0)
})
