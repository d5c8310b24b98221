'use strict'

// The daemon's V8 flags (lib/cli/daemon-node-flags.js) are named as the running Node's V8 names them.
const test = require('node:test')
const assert = require('node:assert/strict')
const { daemonNodeFlags } = require('../../lib/cli/daemon-node-flags')

test('one memory-reducer GC is asked for under the name this Node knows', () => {
  assert.deepEqual(daemonNodeFlags('v20.20.2'), ['--max-semi-space-size=1', '--memory-reducer-single-gc'])
  assert.deepEqual(daemonNodeFlags('v22.12.0'), ['--max-semi-space-size=1', '--memory-reducer-gc-count=1'])
  assert.deepEqual(daemonNodeFlags('v24.0.0'), ['--max-semi-space-size=1', '--memory-reducer-gc-count=1'])
})
