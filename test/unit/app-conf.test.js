'use strict'

// PM2's `set <app>:<key> <value>` store (lib/shared/state/app-conf.js): keys, values, what the app gets.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const store = require('../../lib/shared/state/app-conf')

test('keys as PM2 writes them: app:key and app.key; values are strings; the app gets each key and the whole as JSON', async () => {
  assert.deepEqual(store.splitKey('echo:config_var'), { app: 'echo', key: 'config_var' })
  assert.deepEqual(store.splitKey('echo.probes'), { app: 'echo', key: 'probes' })
  assert.deepEqual(store.splitKey('echo'), { app: 'echo', key: null })
  assert.throws(() => store.checkKey(store.splitKey(':x'), ':x'), { code: 'XPM_ERR_BAD_ARGUMENT' })
  let conf = store.setValue({}, 'echo', 'config_var', false)
  conf = store.setValue(conf, 'echo', 'probes', 'true')
  assert.deepEqual(conf, { echo: { config_var: 'false', probes: 'true' } })
  assert.deepEqual(store.appEnv(conf, 'echo'), { config_var: 'false', probes: 'true', echo: '{"config_var":"false","probes":"true"}' })
  assert.deepEqual(store.appEnv(conf, 'other'), {})
  assert.deepEqual(store.unsetValue(conf, 'echo', 'probes'), { echo: { config_var: 'false' } })
  assert.deepEqual(store.unsetValue(conf, 'echo', null), {})
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-conf-'))
  assert.deepEqual(await store.readAppConf(home), {})
  await store.writeAppConf(home, conf)
  assert.deepEqual(await store.readAppConf(home), conf)
  assert.equal(fs.statSync(path.join(home, 'module_conf.json')).mode & 0o077, 0, 'private, like every file of XPM_HOME')
  fs.rmSync(home, { recursive: true })
})
