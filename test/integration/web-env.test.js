'use strict'

// Issue 34: PM2's answer (`GET /`, `/pm2`) and the apps' environments. With --read-only no value
// is served (the names only); the full dashboard hides the values that look secret (by name, and
// the password of a URL) unless asked with ?reveal=1.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { createHome, fixture } = require('../helpers/xpm')
const { startWeb, request } = require('../helpers/web')

const ENV = { DB_PASSWORD: 'hunter2-db', STRIPE_API_KEY: 'sk_live_zzz', DATABASE_URL: 'postgres://app:pw-in-url@db:5432/app', GREETING: 'hello-plain' }
const SECRETS = ['hunter2-db', 'sk_live_zzz', 'pw-in-url']

test('the environment in PM2\'s answer: names only when read-only, secrets masked unless revealed', { timeout: 120000 }, async (t) => {
  const home = createHome(t)
  const started = await home.run(['start', fixture('idle.js'), '--name', 'env-app'], { env: ENV })
  assert.equal(started.code, 0, started.stderr)
  const full = await startWeb(home, [], t)
  const ro = await startWeb(home, ['--read-only'], t)
  const get = (web, path) => request(web.port, { path, headers: { authorization: `Bearer ${web.token}` } })

  for (const path of ['/', '/pm2']) {
    const masked = await get(full, path)
    assert.equal(masked.status, 200)
    for (const s of SECRETS) assert.ok(!masked.body.includes(s), `${path} serves ${s}`)
    const p = masked.json.processes.find((x) => x.name === 'env-app')
    assert.equal(p.pm2_env.env.GREETING, 'hello-plain')
    assert.equal(p.pm2_env.GREETING, 'hello-plain')
    assert.equal(p.pm2_env.env.DB_PASSWORD, '[hidden]')
    assert.equal(p.pm2_env.env.DATABASE_URL, 'postgres://app:[hidden]@db:5432/app')

    const revealed = await get(full, `${path}?reveal=1`)
    for (const s of SECRETS) assert.ok(revealed.body.includes(s), `${path}?reveal=1 hides ${s}`)

    for (const q of ['', '?reveal=1']) {
      const names = await get(ro, path + q)
      assert.equal(names.status, 200)
      for (const s of [...SECRETS, 'hello-plain']) assert.ok(!names.body.includes(s), `read-only ${path}${q} serves ${s}`)
      const env = names.json.processes.find((x) => x.name === 'env-app').pm2_env.env
      assert.ok(Object.keys(env).includes('GREETING') && Object.keys(env).includes('DB_PASSWORD'))
      assert.ok(Object.values(env).every((v) => v === '[hidden]'))
    }
  }
})
