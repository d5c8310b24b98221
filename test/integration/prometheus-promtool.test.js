'use strict'

// The Prometheus exposition checked by promtool (a real tool, spawned: so not a unit test), from
// the daemon's in-memory state (real app model, fake launcher, stub samples).
const test = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const { Supervisor } = require('../../daemon/supervisor')
const { createExposition } = require('../../daemon/prometheus/exposition')
const { fakeLauncher, fakeSpec } = require('../helpers/fake-launcher')
const { NAMES, stubMetrics, point, samples } = require('../helpers/prometheus')

function promtool (text) {
  const found = spawnSync('promtool', ['--version'], { encoding: 'utf8' })
  if (found.error) return null
  return spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' })
}

test('the exposition: every process with the names of the issue and labels app, id, instance; counters move; promtool agrees', async (t) => {
  const fake = fakeLauncher()
  const supervisor = new Supervisor({ launcher: fake.launcherFor })
  t.after(() => supervisor.close())
  const metrics = stubMetrics()
  const exposition = createExposition({ supervisor, metrics, version: '9.9.9' })
  t.after(() => exposition.close())
  await supervisor.start([fakeSpec('api', { instances: 2, execMode: 'cluster' }), fakeSpec('worker')])
  for (const inst of supervisor.allInstances()) metrics.points.set(inst.id, point)
  await supervisor.stop('worker')

  let text = await exposition.render()
  const all = samples(text)
  for (const name of NAMES.filter((n) => n !== 'xpm_process_event_loop_delay_seconds')) {
    const rows = all.filter((s) => s.name === name)
    const expected = ['xpm_process_up', 'xpm_process_ready', 'xpm_process_restarts_total'].includes(name) ? 3 : 2
    assert.equal(rows.length, expected, `${name}: ${JSON.stringify(rows)}`)
    for (const r of rows) assert.deepEqual(Object.keys(r.labels).sort(), ['app', 'id', 'instance'], name)
  }
  const api0 = { app: 'api', id: '0', instance: '0' }
  const value = (name, labels) => all.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value
  assert.equal(value('xpm_process_up', api0), 1)
  assert.equal(value('xpm_process_ready', api0), 1)
  assert.equal(value('xpm_process_up', { app: 'worker' }), 0, 'a stopped process is down, not missing')
  assert.equal(value('xpm_process_resident_memory_bytes', api0), 50e6)
  assert.equal(value('xpm_process_cpu_seconds_total', api0), 1.25)
  assert.equal(value('xpm_process_event_loop_utilization', api0), 0.25)
  assert.equal(value('xpm_process_event_loop_delay_seconds', { ...api0, quantile: '0.9' }), 0.0015)
  assert.equal(value('xpm_process_event_loop_delay_seconds', { ...api0, quantile: '0.99' }), 0.012)
  assert.ok(Math.abs(value('xpm_process_start_time_seconds', api0) - Date.now() / 1000) < 60)
  assert.equal(value('xpm_daemon_info', { version: '9.9.9' }), 1)
  assert.equal(value('xpm_apps', {}), 2)
  assert.equal(all.filter((s) => s.name === 'xpm_reloads_total').length, 0)

  // a restart and a reload move the counters (the first restart of the stopped worker starts it
  // and counts nothing, as in PM2; the second counts one)
  await supervisor.restart('worker')
  await supervisor.restart('worker')
  await supervisor.reload('api')
  text = await exposition.render()
  const after = samples(text)
  const at = (name, labels) => after.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value
  assert.equal(at('xpm_process_restarts_total', { app: 'worker' }), 1)
  assert.equal(at('xpm_process_restarts_total', api0), 1, 'a reload replaced api[0]')
  assert.equal(at('xpm_reloads_total', { app: 'api', result: 'success' }), 1)
  assert.match(text, /^# TYPE xpm_process_event_loop_delay_seconds summary$/m)
  assert.match(text, /^# TYPE xpm_process_restarts_total counter$/m)

  const checked = promtool(text)
  if (!checked) t.diagnostic('promtool not installed (Debian: apt-get install prometheus): the text format was not checked by it')
  else assert.equal(checked.status, 0, `promtool check metrics: ${checked.stdout}${checked.stderr}\n${text}`)

  // a deleted app is gone from the next scrape, its reload counter too
  await supervisor.delete('api')
  const gone = samples(await exposition.render())
  assert.equal(gone.filter((s) => s.labels.app === 'api').length, 0)
})
