'use strict'

// The daemon's metrics against real processes (no daemon, no agent): a busy loop shows about one
// core, an idle server about zero.
const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const { fork } = require('node:child_process')
const path = require('node:path')
const { once, on } = require('node:events')
const { createMetrics } = require('../../daemon/metrics')

const FIXTURES = path.join(__dirname, '..', 'fixtures')
const pids = new Set()

function start (fixture) {
  const env = { ...process.env, PORT: '0' }
  delete env.NODE_TEST_CONTEXT
  const child = fork(path.join(FIXTURES, fixture), [], { env, stdio: 'ignore', execArgv: [] })
  pids.add(child.pid)
  return child
}

after(() => {
  for (const pid of pids) {
    try { process.kill(pid, 'SIGKILL') } catch {}
  }
})

test('a busy-loop process shows about one core of CPU, an idle one about zero', async () => {
  const busy = start('busy-loop.js')
  const idle = start('idle-http.js')
  await Promise.all([once(busy, 'spawn'), once(idle, 'spawn')])
  const metrics = createMetrics({ fullMs: 300 })
  metrics.track('busy', busy.pid)
  metrics.track('idle', idle.pid)
  metrics.watch() // full rate
  metrics.start()
  const seen = []
  const deadline = AbortSignal.timeout(10000)
  for await (const [map] of on(metrics, 'sample', { signal: deadline })) {
    seen.push(map)
    if (seen.length >= 5) break
  }
  metrics.stop()
  const last = seen.at(-1)
  // a loaded 2-core CI box can lend the busy loop less than a core for a sample or two: the best
  // of the later samples tells a busy process from an idle one
  const busyCpu = seen.slice(1).map((m) => m.get('busy').cpu)
  const idleCpu = seen.slice(1).map((m) => m.get('idle').cpu)
  assert.ok(Math.max(...busyCpu) > 40 && Math.max(...busyCpu) < 130, `busy ${busyCpu}`)
  assert.ok(Math.min(...idleCpu) < 10 && Math.max(...idleCpu) < 30, `idle ${idleCpu}`)
  assert.ok(last.get('idle').memory > 10 * 1024 * 1024)
  assert.equal(last.get('idle').heapUsed, null)
})
