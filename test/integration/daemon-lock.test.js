'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const readline = require('node:readline')
const { spawn } = require('node:child_process')
const { acquireLock, waitForLock, probeLock } = require('../../lib/shared/daemon-lock')
const { waitFor } = require('../helpers/wait')
const { isAlive } = require('../../lib/shared/pid')
const { tempDir } = require('../helpers/tmp')

const LOCK_MODULE = path.join(__dirname, '..', '..', 'lib', 'shared', 'daemon-lock.js')

function tmpHome (t) {
  const dir = tempDir('xpm-lock-')
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

// A process that tries to take the lock, prints "won" or "lost" and stays until killed.
function contender (t, home) {
  const code = `require(${JSON.stringify(LOCK_MODULE)}).acquireLock(${JSON.stringify(home)})
    .then((r) => { if (r.held) r.held.close(); console.log(r.held ? 'lost' : 'won') }, (e) => console.log('error ' + e.message))
    setInterval(() => {}, 1 << 30)`
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.after(() => { if (isAlive(child.pid)) child.kill('SIGKILL') })
  const answer = new Promise((resolve) => readline.createInterface({ input: child.stdout }).once('line', resolve))
  return { child, answer }
}

test('one holder at a time; the others learn its pid and state; a released lock can be taken again', async (t) => {
  const home = tmpHome(t)
  const first = await acquireLock(home)
  assert.equal(first.held, undefined)
  first.setDescribe(async () => ({ pid: process.pid, state: 'running' }))
  const second = await acquireLock(home)
  assert.equal(second.held.pid, process.pid)
  assert.equal(second.held.state, 'running')
  second.held.close()
  const probe = await probeLock(home)
  assert.equal(probe.state, 'running')
  probe.close()
  // only the owner can reach it: the folder is 0700 inside a 0700 home, the socket 0600
  assert.equal(fs.statSync(path.join(home, 'daemon.lock')).mode & 0o777, 0o700)
  assert.equal(fs.statSync(first.path).mode & 0o777, 0o600)
  assert.deepEqual(fs.readdirSync(home), ['daemon.lock'], 'no staging folder left behind')
  await first.release()
  assert.equal(await probeLock(home), null)
  const third = await acquireLock(home)
  assert.equal(third.held, undefined)
  await third.release()
})

test('a holder killed with SIGKILL leaves a socket nobody listens on: the next one takes over', async (t) => {
  const home = tmpHome(t)
  const dead = contender(t, home)
  assert.equal(await dead.answer, 'won')
  const lockDir = path.join(home, 'daemon.lock')
  const [stale] = fs.readdirSync(lockDir)
  dead.child.kill('SIGKILL')
  await waitFor(() => !isAlive(dead.child.pid), { message: 'holder gone' })
  assert.deepEqual(fs.readdirSync(lockDir), [stale], 'the dead holder left its socket')
  assert.equal(await probeLock(home), null, 'nobody listens: no holder')
  const next = await acquireLock(home)
  assert.equal(next.held, undefined)
  assert.deepEqual(fs.readdirSync(lockDir), [path.basename(next.path)])
  await next.release()
})

test('eight processes racing for a stale lock: exactly one wins', async (t) => {
  const home = tmpHome(t)
  const dead = contender(t, home)
  assert.equal(await dead.answer, 'won')
  dead.child.kill('SIGKILL')
  await waitFor(() => !isAlive(dead.child.pid), { message: 'holder gone' })
  const racers = Array.from({ length: 8 }, () => contender(t, home))
  const answers = await Promise.all(racers.map((r) => r.answer))
  assert.equal(answers.filter((a) => a === 'won').length, 1, answers.join(','))
  assert.equal(answers.filter((a) => a === 'lost').length, 7, answers.join(','))
  assert.equal(fs.readdirSync(path.join(home, 'daemon.lock')).length, 1)
  assert.deepEqual(fs.readdirSync(home).filter((n) => n.startsWith('.lock-')), [], 'losers removed their staging folders')
})

test('something else under the lock name (a file, a link) is replaced', async (t) => {
  const home = tmpHome(t)
  fs.writeFileSync(path.join(home, 'daemon.lock'), 'junk')
  const lock = await acquireLock(home)
  assert.equal(lock.held, undefined)
  assert.ok(fs.statSync(path.join(home, 'daemon.lock')).isDirectory())
  await lock.release()
})

test('waitForLock (--foreground) takes the lock as soon as the holder exits, without polling', async (t) => {
  const home = tmpHome(t)
  const holder = contender(t, home)
  assert.equal(await holder.answer, 'won')
  let got = null
  const waiting = waitForLock(home).then((lock) => { got = lock })
  const probe = await probeLock(home)
  assert.equal(probe.pid, holder.child.pid)
  probe.close()
  assert.equal(got, null, 'still waiting while the holder lives')
  holder.child.kill('SIGKILL')
  await waiting
  assert.equal(got.held, undefined)
  await got.release()
})
