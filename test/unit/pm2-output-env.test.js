'use strict'

// jlist --pm2 (lib/cli/render-pm2.js): the environment as PM2 prints it.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { toPm2 } = require('../../lib/cli/render-pm2')

test('jlist --pm2: the environment as PM2 prints it, under env and at the top of pm2_env; the instance number once, an increment_var as a number', () => {
  const env = { PORT: '3001', APP_ID: '1', config_var: 'false', status: 'from-env' }
  const e = toPm2({ name: 'api', id: 2, status: 'online', instance: 1, env, spec: { instanceVar: 'APP_ID', incrementVar: 'PORT' } }).pm2_env
  assert.deepEqual(e.env, { PORT: 3001, config_var: 'false', status: 'from-env' })
  assert.deepEqual([e.PORT, e.config_var, e.APP_ID, e.status], [3001, 'false', 1, 'online'], 'xpm\'s own fields win over a variable of the same name')
  assert.deepEqual(toPm2({ name: 'web', id: 0, status: 'online', env: { PORT: '80' }, spec: {} }).pm2_env.env, { PORT: '80' }, 'not an increment_var: as given')
})
