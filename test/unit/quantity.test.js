'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { formatBytes, formatDuration, formatUptime } = require('../../lib/shared/quantity')

test('formatBytes: binary multiples, one decimal below 100 of a unit, none from 100 up', () => {
  assert.equal(formatBytes(0), '0 B')
  assert.equal(formatBytes(1023), '1023 B')
  assert.equal(formatBytes(1024), '1.0 KB')
  assert.equal(formatBytes(1536), '1.5 KB')
  assert.equal(formatBytes(812 * 1024), '812 KB')
  assert.equal(formatBytes(1023.7 * 1024), '1.0 MB', 'never 1024 KB')
  assert.equal(formatBytes(45.25 * 1024 ** 2), '45.3 MB')
  assert.equal(formatBytes(52 * 1024 ** 2), '52.0 MB')
  assert.equal(formatBytes(99.97 * 1024 ** 2), '100 MB', 'never 100.0 MB')
  assert.equal(formatBytes(512 * 1024 ** 2), '512 MB')
  assert.equal(formatBytes(1.2 * 1024 ** 3), '1.2 GB')
  assert.equal(formatBytes(3 * 1024 ** 4), '3.0 TB')
})

test('formatDuration: milliseconds under a second, then the largest whole unit', () => {
  assert.equal(formatDuration(0), '0')
  assert.equal(formatDuration(0.004), '0.00 ms')
  assert.equal(formatDuration(1.234), '1.23 ms')
  assert.equal(formatDuration(9.999), '10.0 ms')
  assert.equal(formatDuration(45.67), '45.7 ms')
  assert.equal(formatDuration(201.4), '201 ms')
  assert.equal(formatDuration(999.7), '1s', 'never 1000 ms')
  assert.equal(formatDuration(45_000), '45s')
  assert.equal(formatDuration(59_999), '59s', 'rounded down: an uptime never runs ahead')
  assert.equal(formatDuration(3 * 60_000 + 59_000), '3m')
  assert.equal(formatDuration(2 * 3_600_000 + 5 * 60_000), '2h')
  assert.equal(formatDuration(4 * 86_400_000 + 3_600_000), '4d')
})

test('formatUptime: whole units only, a process just online reads 0s', () => {
  assert.equal(formatUptime(7), '0s')
  assert.equal(formatUptime(999), '0s')
  assert.equal(formatUptime(45_000), '45s')
  assert.equal(formatUptime(0), '0')
  assert.equal(formatUptime(undefined), '-')
})

test('a missing, non-finite or negative quantity is a dash', () => {
  for (const bad of [undefined, null, NaN, Infinity, -1, '52']) {
    assert.equal(formatBytes(bad), '-', String(bad))
    assert.equal(formatDuration(bad), '-', String(bad))
  }
})

test('list, show and monit print the same memory, heap, uptime and loop delay the same way', () => {
  const { renderList } = require('../../lib/cli/render-list')
  const { renderShow } = require('../../lib/cli/render-show')
  const render = require('../../lib/cli/monit/render')
  const { MonitModel } = require('../../lib/cli/monit/model')
  const metrics = { heapUsed: 20 * 1024 ** 2, heapTotal: 40 * 1024 ** 2, elP50: 0, elP95: 2.5, elP99: 180, elMax: 1500, elu: 0.25 }
  const spec = { script: '/srv/api.js', cwd: '/srv', execMode: 'fork', instances: 1, interpreter: 'node' }
  const p = { id: 0, name: 'api', instance: 0, mode: 'fork', pid: 4242, status: 'online', restarts: 0, uptime: 3 * 3_600_000, cpu: 1, memory: 52 * 1024 ** 2, createdAt: 0, metrics, spec }
  const list = renderList([p], { columns: 80 })
  const show = renderShow([p])
  const model = new MonitModel({ now: () => 0 })
  model.seed({ processes: [p] })
  const monit = render.detailLines(model, 80, 4).join('\n')

  for (const text of [list, show, monit]) {
    assert.ok(text.includes('52.0 MB'), text)
    assert.ok(text.includes('3h'), text)
  }
  for (const text of [show, monit]) {
    assert.ok(text.includes('20.0 MB / 40.0 MB'), text)
    assert.ok(text.includes('2.50 ms') && text.includes('180 ms'), text)
  }
  assert.match(show, /loop delay +│ p50 0 +p95 2\.50 ms +p99 180 ms +max 1s/)
})
