'use strict'

// A process whose entry has not run its first turn within listen_timeout, yet is running (a big
// app on a saturated machine: 1,000 processes booting on two cores) is taken as online with a
// warning, as PM2 counts a fork app online at spawn — not stopped as "not ready in time" and
// restarted, which under load fed a restart storm (daemon/model/wait-ready.js, aliveIsReady).
// Strict cases (a readiness probe never passing, a reload replacement) are in overlap.test.js,
// health.test.js and test/unit/model-wait-ready.test.js.

const test = require('node:test')
const assert = require('node:assert/strict')
const { createHome, waitFor, fixture } = require('../helpers/xpm')

test('an entry that blocks longer than listen_timeout: online with a warning (start output, xpm why), never restarted', { timeout: 60000 }, async (t) => {
  const h = createHome(t)
  const res = await h.run(['start', fixture('slow-boot.js'), '--name', 'slow', '--listen-timeout', '1s'], { env: { BOOT_MS: '4000' } })
  assert.equal(res.code, 0, res.stderr)
  const warning = res.stderr.match(/\[xpm\] warning: slow\[0\] \(pid (\d+)\) had not run its entry \(its first turn\) within listen_timeout \(1000 ms\) but is running; taken as online/)
  assert.ok(warning, `start output says why it is online: ${res.stderr}`)
  const pid = Number(warning[1])
  h.track(pid)

  let [row] = await h.jlist()
  assert.deepEqual([row.status, row.pid, row.restarts], ['online', pid, 0])

  // the entry finishes its blocking start-up later: same process, never restarted
  await waitFor(async () => (await h.run(['logs', 'slow', '--lines', '20', '--nostream', '--raw'])).stdout.includes(`booted ${pid}`),
    { timeout: 30000, interval: 200, message: 'the slow entry to finish booting' })
  ;[row] = await h.jlist()
  assert.deepEqual([row.status, row.pid, row.restarts], ['online', pid, 0])
  assert.equal(row.lastExit ?? null, null, `no exit: ${JSON.stringify(row.lastExit)}`)

  const why = JSON.parse((await h.run(['why', 'slow', '--json'])).stdout)
  const entry = why.find((e) => e.event === 'warning')
  assert.ok(entry, JSON.stringify(why))
  assert.equal(entry.cause.kind, 'slow_start')
  assert.equal(entry.pid, pid)
  assert.ok(!why.some((e) => e.event === 'exit'), `no exit in the journal: ${JSON.stringify(why)}`)
  const text = (await h.run(['why', 'slow'])).stdout
  assert.match(text, /online with a warning: slow\[0\] \(pid \d+\) had not run its entry/)
})
