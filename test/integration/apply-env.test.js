'use strict'

// `xpm apply` compares exactly the environment that is part of an app's desired state (issue 23,
// docs/ecosystem.md#the-environment-as-desired-state): the variables the file sets, with the
// values they have when apply runs (`process.env.DB_URL` read by the file included); not the
// caller's other variables. An `autostart: false` app stays registered without a plan to start it.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, runXpm, freePort, httpGet, fixture } = require('../helpers/xpm')

test('apply: a new DB_URL read by the file is a change; a shell without OLDPWD is not; an autostart: false app does not plan "start"', async (t) => {
  const h = createHome(t, { inProcess: true })
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir)
  const port = await freePort()
  fs.writeFileSync(path.join(dir, 'ecosystem.config.js'), `module.exports = { apps: [
    { name: 'api', script: ${JSON.stringify(fixture('echo-http.js'))}, env: { PORT: '${port}', DB_URL: process.env.DB_URL } },
    { name: 'later', script: ${JSON.stringify(fixture('idle.js'))}, autostart: false }
  ] }`)
  // the caller's environment, as a shell gives it
  const shell = (extra) => {
    const env = { ...h.env, ...extra }
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k]
    return env
  }
  const apply = (env, ...args) => runXpm(['apply', 'ecosystem.config.js', ...args], { env, cwd: dir })

  const first = shell({ DB_URL: 'postgres://one', OLDPWD: '/home/me' })
  let res = await apply(first)
  assert.equal(res.code, 0, res.stdout + res.stderr)
  assert.equal((await httpGet(port)).json.env.DB_URL, 'postgres://one')
  assert.deepEqual((await h.jlist()).map((p) => [p.name, p.status]), [['api', 'online'], ['later', 'stopped']])

  // the same shell: nothing to change, and --dry-run says so with exit 0 (autostart: false included)
  res = await apply(first, '--dry-run')
  assert.equal(res.code, 0, res.stdout)
  assert.doesNotMatch(res.stdout, /start +later/)

  // another terminal: no OLDPWD, another PWD, the same DB_URL: nothing to change
  res = await apply(shell({ DB_URL: 'postgres://one', OLDPWD: undefined, PWD: '/tmp' }), '--dry-run')
  assert.equal(res.code, 0, res.stdout)

  // a new DB_URL: the file's value changed, so api reloads and gets it
  const second = shell({ DB_URL: 'postgres://two', OLDPWD: undefined })
  res = await apply(second, '--dry-run')
  assert.equal(res.code, 3, res.stdout)
  assert.match(res.stdout, /reload[ │]+api[ │]+changed: env\.DB_URL/)
  res = await apply(second)
  assert.equal(res.code, 0, res.stdout + res.stderr)
  assert.equal((await httpGet(port)).json.env.DB_URL, 'postgres://two')
  res = await apply(second, '--dry-run')
  assert.equal(res.code, 0, res.stdout)
})
