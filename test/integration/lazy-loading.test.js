'use strict'

// What a command loads, seen from a fresh Node process (spawned: so not a unit test): the CLI's
// time to first output is a feature (shared/STYLE.md).
const test = require('node:test')
const assert = require('node:assert/strict')

test('cli-table3 is loaded only by commands that draw a small table; string-width only for non-ASCII cells', () => {
  const { execFileSync } = require('node:child_process')
  const path = require('node:path')
  const loaded = (code) => JSON.parse(execFileSync(process.execPath, ['-e', `${code}
    const keys = Object.keys(require.cache)
    process.stdout.write(JSON.stringify(['cli-table3', 'string-width'].filter((m) => keys.some((k) => k.includes('/node_modules/' + m + '/')))))`], { cwd: path.join(__dirname, '..', '..') }))
  const row = (name) => `[{ id: 0, name: ${JSON.stringify(name)}, mode: 'fork', pid: 1, uptime: 1000, restarts: 0, status: 'online', cpu: 0, memory: 1 }]`
  assert.deepEqual(loaded(`require('./lib/cli/render-list').renderList(${row('api')})`), [])
  assert.deepEqual(loaded(`require('./lib/cli/render-list').renderList(${row('日本語')})`), ['string-width'])
  assert.deepEqual(loaded("require('./lib/cli/render-show'); require('./lib/cli/render-why'); require('./lib/cli/commands/apply')"), [])
  assert.deepEqual(loaded("require('./lib/cli/render-why').renderWhy([{ at: 0, app: 'a', instance: 0, event: 'restart', cause: { kind: 'crash', detail: 'x' } }])"), ['cli-table3', 'string-width'])
})
