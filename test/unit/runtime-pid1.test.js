'use strict'

// What xpm-runtime does when it finds itself PID 1 (daemon/runtime/pid1.js), from the facts.
const test = require('node:test')
const assert = require('node:assert/strict')
const { planInit, ensureInit, INIT_SCRIPT } = require('../../daemon/runtime/pid1')

const facts = { pid: 1, env: {}, canExec: true, hasShell: () => true, execPath: '/usr/local/bin/node', execArgv: ['--enable-source-maps'], argv: ['/usr/local/bin/node', '/app/node_modules/.bin/xpm-runtime', 'ecosystem.config.js', '--only', 'api'], version: 'v22.15.0' }

test('not PID 1: nothing to do', () => {
  assert.deepEqual(planInit({ ...facts, pid: 7 }), { action: 'none' })
  assert.equal(ensureInit({ ...facts, pid: 7 }), null)
})

test('PID 1 with process.execve and /bin/sh: becomes /bin/sh init.sh <the same runtime command line>', () => {
  assert.deepEqual(planInit(facts), {
    action: 'exec',
    file: '/bin/sh',
    args: ['/bin/sh', INIT_SCRIPT, '/usr/local/bin/node', '--enable-source-maps', '/app/node_modules/.bin/xpm-runtime', 'ecosystem.config.js', '--only', 'api']
  })
  const calls = []
  assert.equal(ensureInit({ ...facts, execve: (...args) => calls.push(args) }), null)
  assert.equal(calls.length, 1)
  assert.equal(calls[0][0], '/bin/sh')
})

test('PID 1 without a way to put an init in front: a warning that names the cause and the fix', () => {
  for (const [change, cause] of [
    [{ canExec: false, version: 'v20.19.0' }, /Node v20\.19\.0 cannot .*Node >= 22\.15/],
    [{ hasShell: () => false }, /no \/bin\/sh/],
    [{ env: { XPM_RUNTIME_INIT: '0' } }, /XPM_RUNTIME_INIT=0/]
  ]) {
    const plan = planInit({ ...facts, ...change })
    assert.equal(plan.action, 'warn')
    const text = ensureInit({ ...facts, ...change })
    assert.match(text, /PID 1 without an init/)
    assert.match(text, cause)
    assert.match(text, /docker run --init/)
  }
  const failed = ensureInit({ ...facts, execve: () => { throw new Error('EACCES') } })
  assert.match(failed, /failed \(EACCES\).*docker run --init/)
})

test('Node as PID 1: a SIGTERM or SIGINT before the daemon listens ends the runtime (the kernel would drop it); after, the daemon handles it', () => {
  const { EventEmitter } = require('node:events')
  const { holdEarlySignals } = require('../../daemon/runtime/pid1')
  const proc = Object.assign(new EventEmitter(), { pid: 1 })
  const exits = []
  assert.equal(holdEarlySignals({ proc, exit: (code) => exits.push(code) }), true)
  proc.emit('SIGTERM')
  proc.emit('SIGINT')
  assert.deepEqual(exits, [143, 130])
  proc.on('SIGTERM', () => exits.push('daemon shutdown'))
  proc.emit('SIGTERM')
  assert.deepEqual(exits, [143, 130, 'daemon shutdown'])
  assert.equal(holdEarlySignals({ proc: Object.assign(new EventEmitter(), { pid: 7 }) }), false, 'not PID 1: nothing to hold')
})
