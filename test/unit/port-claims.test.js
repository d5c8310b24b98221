'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { PortClaims, watchListening } = require('../../daemon/model/port-claims')
const { ProcessHandle } = require('../../daemon/launchers/handle')

const handle = () => Object.assign(new EventEmitter(), { exited: false, pid: 100 })
const [a, b] = [{ name: 'a' }, { name: 'b' }]

test('a port is the first app\'s: another app on the same address, or either on every address, is refused; one app\'s workers share it', () => {
  const claims = new PortClaims()
  const [a0, a1, b0] = [handle(), handle(), handle()]
  assert.equal(claims.claim(a0, a, 'a[0], pid 1', { address: '::', family: 'IPv6', port: 3000 }), null)
  assert.equal(claims.claim(a1, a, 'a[1], pid 2', { address: null, addressType: 4, port: 3000 }), null)
  const taken = claims.claim(b0, b, 'b[0], pid 3', { address: '127.0.0.1', port: 3000 })
  assert.equal(taken.app, a)
  assert.equal(taken.label, 'a[0], pid 1')
  assert.equal(taken.where, '127.0.0.1:3000')
  assert.equal(claims.claim(b0, b, 'b[0], pid 3', { address: '::', port: 3001 }), null, 'another port')
})

test('two specific addresses of one port do not overlap; a Unix socket or port 0 claims nothing', () => {
  const claims = new PortClaims()
  assert.equal(claims.claim(handle(), a, 'a[0]', { address: '127.0.0.1', port: 3000 }), null)
  assert.equal(claims.claim(handle(), b, 'b[0]', { address: '127.0.0.2', port: 3000 }), null)
  assert.equal(claims.claim(handle(), b, 'b[0]', { address: '::1', port: 3000 }), null)
  assert.equal(claims.claim(handle(), b, 'b[1]', { address: '127.0.0.1', port: 3000 }).where, '127.0.0.1:3000')
  assert.equal(claims.claim(handle(), b, 'b[1]', { address: '::1', port: 3000 }), null, 'b\'s own')
  assert.equal(claims.claim(handle(), b, 'b[1]', { address: 'fe80::1', port: 3000 }), null)
  const six = claims.claim(handle(), a, 'a[1]', { address: '::1', port: 3000 })
  assert.equal(six.where, '[::1]:3000')
  assert.equal(claims.claim(handle(), b, 'b[2]', { address: '/tmp/app.sock', addressType: -1, port: -1 }), null)
  assert.equal(claims.claim(handle(), b, 'b[2]', { address: '::', port: 0 }), null)
})

test('a worker that disconnects or exits lets go of its port; a refused one never held it', () => {
  const claims = new PortClaims()
  const [a0, b0, b1] = [handle(), handle(), handle()]
  claims.claim(a0, a, 'a[0]', { address: '::', port: 3000 })
  assert.ok(claims.claim(b0, b, 'b[0]', { address: '::', port: 3000 }))
  a0.emit('disconnect')
  assert.equal(claims.claim(b1, b, 'b[1]', { address: '::', port: 3000 }), null)
  assert.ok(claims.claim(handle(), a, 'a[0]', { address: '::', port: 3000 }), 'b has it now; b[0], refused, did not')
  b1.exited = true
  b1.emit('exit')
  assert.equal(claims.claim(handle(), a, 'a[0]', { address: '::', port: 3000 }), null)
})

test('watchListening: the app listens (markListening), or the process is refused: portTaken, the slot gives up, the process is stopped quickly', () => {
  const ports = new PortClaims()
  const calls = { listening: 0, stopped: [] }
  const [appA, appB] = [{ name: 'a', markListening: () => calls.listening++ }, { name: 'b', markListening: () => calls.listening++ }]
  ports.claim(handle(), appA, 'a[0], pid 7', { address: '::', port: 3000 })
  const make = (app) => {
    calls.listening = 0
    calls.stopped = []
    const inst = {
      label: `${app.name}[0]`,
      spec: { killTimeout: 5000 },
      context: { ports },
      app,
      refusePort: (h, reason) => calls.stopped.push([h === inst.handle, reason]) // Instance#refusePort: gives up, stops it quickly
    }
    const h = new ProcessHandle({ child: { pid: 100 } })
    inst.handle = h
    watchListening(inst, h)
    return { inst, h }
  }
  const mine = make(appA)
  mine.h.emit('listening', { address: '::', port: 3000 })
  assert.deepEqual([calls.listening, calls.stopped, mine.h.portTaken], [1, [], null])
  const theirs = make(appB)
  theirs.h.emit('listening', { address: '::', port: 3000 })
  assert.equal(calls.listening, 0)
  assert.match(theirs.h.portTaken, /^listened on port 3000, where app "a" listens already \(a\[0\], pid 7\); it was stopped/)
  assert.deepEqual(calls.stopped, [[true, 'port taken: port 3000 is app "a"\'s']])
})
