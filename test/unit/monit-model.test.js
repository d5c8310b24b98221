'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { MonitModel } = require('../../lib/cli/monit/model')

function proc (id, extra = {}) {
  return { id, name: `app${id}`, instance: 0, pid: 100 + id, status: 'online', restarts: 0, uptime: 1000, cpu: id, memory: 1000 * id, metrics: { heapUsed: 10 * id, heapTotal: 20 * id, elP50: 1, elP95: 2, elP99: 3, elMax: 4, elu: 0.5 }, ...extra }
}

function clockModel (opts) {
  let now = 1000
  const model = new MonitModel({ now: () => now, ...opts })
  return { model, tick: (ms = 1000) => { now += ms } }
}

test('seed keeps the daemon history and selects the first process by id', () => {
  const { model } = clockModel()
  model.seed({ processes: [proc(2), proc(1)], history: { 1: [{ at: 1, cpu: 5, memory: 6, heapUsed: 7, heapTotal: 8, elP95: 9, elP99: 10, elu: 0.1, extra: true }] } })
  assert.deepEqual(model.processes.map((p) => p.id), [1, 2])
  assert.equal(model.selectedId, 1)
  // The charted figures are kept: CPU and heap used.
  assert.deepEqual(model.historyOf(1), [{ at: 1, cpu: 5, heapUsed: 7 }])
  assert.deepEqual(model.seriesOf(1, 'cpu'), [5])
  assert.deepEqual(model.historyOf(2), [])
})

test('each push appends one bounded history point per process, null metrics for non-Node processes', () => {
  const { model, tick } = clockModel({ historySize: 3 })
  model.seed({ processes: [] })
  for (let i = 0; i < 5; i++) {
    tick()
    model.setProcesses([proc(0, { cpu: i, metrics: null })])
  }
  const points = model.historyOf(0)
  assert.deepEqual(points.map((p) => p.cpu), [2, 3, 4])
  assert.deepEqual(points.map((p) => p.at), [4000, 5000, 6000])
  assert.equal(points[2].heapUsed, null)
  assert.deepEqual(model.seriesOf(0, 'cpu', 2), [3, 4])
})

test('with many processes, chart history and log lines stay within their budgets', () => {
  const { model, tick } = clockModel({ historySize: 300, logSize: 200 })
  const many = Array.from({ length: 2000 }, (_, i) => proc(i))
  model.seed({ processes: many })
  for (let i = 0; i < 60; i++) {
    tick()
    model.setProcesses(many)
  }
  assert.equal(model.historyOf(0).length, 50) // 100,000 points / 2,000 processes
  for (let i = 0; i < 30; i++) model.addLog({ id: 7, line: `line ${i}` })
  assert.equal(model.logsOf(7).length, 20) // 20,000 lines / 2,000 processes, at least 20
  model.setProcesses(many.slice(0, 10))
  for (let i = 0; i < 300; i++) model.addLog({ id: 7, line: `line ${i}` })
  assert.equal(model.logsOf(7).length, 200)
  // Lines for an id the dashboard does not know are dropped at the next push.
  model.addLog({ id: 5000, line: 'stray' })
  model.setProcesses(many.slice(0, 10))
  assert.deepEqual(model.logsOf(5000), [])
})

test('the selection follows the same id when processes come and go', () => {
  const { model } = clockModel()
  model.seed({ processes: [proc(1), proc(2), proc(3)] })
  model.move(1)
  assert.equal(model.selectedId, 2)
  model.setProcesses([proc(0), proc(2), proc(3), proc(4)])
  assert.equal(model.selectedId, 2)
  assert.equal(model.selectedIndex(), 1)
})

test('when the selected process disappears the selection stays at the same row, clamped', () => {
  const { model } = clockModel()
  model.seed({ processes: [proc(1), proc(2), proc(3)] })
  model.moveTo(2)
  model.setProcesses([proc(1), proc(2)])
  assert.equal(model.selectedId, 2)
  model.setProcesses([])
  assert.equal(model.selectedId, null)
  assert.equal(model.selected(), null)
  model.setProcesses([proc(7)])
  assert.equal(model.selectedId, 7)
})

test('history and logs of removed processes are dropped', () => {
  const { model } = clockModel()
  model.seed({ processes: [proc(1), proc(2)] })
  model.setProcesses([proc(1), proc(2)])
  model.addLog({ id: 2, line: 'hi' })
  model.setProcesses([proc(1)])
  assert.deepEqual(model.historyOf(2), [])
  assert.deepEqual(model.logsOf(2), [])
  assert.equal(model.historyOf(1).length, 2)
})

test('move clamps at both ends and reports whether anything changed', () => {
  const { model } = clockModel()
  assert.equal(model.move(1), false, 'no processes')
  model.seed({ processes: [proc(1), proc(2)] })
  assert.equal(model.move(-1), false)
  assert.equal(model.move(5), true)
  assert.equal(model.selectedId, 2)
  assert.equal(model.move(1), false)
  assert.equal(model.moveTo(0), true)
  assert.equal(model.selectedId, 1)
})

test('visibleRows scrolls just enough to keep the selection in view', () => {
  const { model } = clockModel()
  model.seed({ processes: Array.from({ length: 10 }, (_, i) => proc(i)) })
  const ids = (h) => model.visibleRows(h).rows.map((p) => p.id)
  assert.deepEqual(ids(3), [0, 1, 2])
  model.moveTo(4)
  assert.deepEqual(ids(3), [2, 3, 4])
  model.move(-1)
  assert.deepEqual(ids(3), [2, 3, 4], 'moving inside the window does not scroll')
  model.moveTo(0)
  assert.deepEqual(ids(3), [0, 1, 2])
  model.moveTo(9)
  assert.deepEqual(ids(3), [7, 8, 9])
  assert.deepEqual(ids(20), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'a taller window (after a resize) shows everything')
  assert.deepEqual(model.visibleRows(0).rows, [])
})

test('log lines are kept per process, bounded, and matched by app and instance when no id is given', () => {
  const { model } = clockModel({ logSize: 2 })
  model.seed({ processes: [proc(1), proc(2, { name: 'api', instance: 1 })] })
  assert.equal(model.addLog({ id: 1, stream: 'out', time: 5, line: 'a' }), true, 'selected process')
  model.addLog({ id: 1, line: 'b' })
  model.addLog({ id: 1, stream: 'err', line: 'c' })
  assert.deepEqual(model.logsOf(1).map((l) => l.line), ['b', 'c'])
  assert.equal(model.logsOf(1)[1].stream, 'err')
  assert.equal(model.addLog({ app: 'api', instance: 1, line: 'x' }), false, 'not the selected process')
  assert.deepEqual(model.logsOf(2).map((l) => l.line), ['x'])
  assert.equal(model.addLog({ app: 'nope', instance: 0, line: 'y' }), false)
})

test('issue 34: the daemon\'s recent lines of a selected process go before its live ones, each line once, bounded', () => {
  const { model } = clockModel({ logSize: 4 })
  model.seed({ processes: [proc(1), proc(2)] })
  model.addLog({ id: 1, stream: 'out', time: 10, line: 'old, not in the reply' })
  model.addLog({ id: 1, stream: 'out', time: 20, line: 'in both' })
  model.addLog({ id: 1, stream: 'out', time: 30, line: 'after the reply' })
  const reply = [
    { app: 'app1', id: null, stream: 'out', time: null, line: 'from the file' },
    { app: 'app1', id: 1, stream: 'err', time: 15, line: 'from the ring' },
    { app: 'app1', id: 1, stream: 'out', time: 20, line: 'in both' }
  ]
  assert.equal(model.seedLogs(1, reply), true, 'the selected process: repaint')
  assert.deepEqual(model.logsOf(1).map((l) => [l.time, l.stream, l.line]), [
    [null, 'out', 'from the file'], [15, 'err', 'from the ring'], [20, 'out', 'in both'], [30, 'out', 'after the reply']
  ])
  assert.equal(model.seedLogs(2, Array.from({ length: 9 }, (_, i) => ({ time: i, line: `l${i}` }))), false, 'not selected')
  assert.deepEqual(model.logsOf(2).map((l) => l.line), ['l5', 'l6', 'l7', 'l8'], 'the newest logSize lines')
  assert.equal(model.seedLogs(9, [{ time: 1, line: 'gone' }]), false)
  assert.deepEqual(model.logsOf(9), [])
})

test('totals add up CPU and memory and count online processes', () => {
  const { model } = clockModel()
  model.seed({ processes: [proc(1), proc(2, { status: 'errored', cpu: null })] })
  assert.deepEqual(model.totals(), { total: 2, online: 1, cpu: 1, memory: 3000 })
})

test('issue 27: the rows a paint showed and the selection are the ids to watch; only watched rows get chart points', () => {
  const model = new MonitModel({ now: () => 1000 })
  const rows = Array.from({ length: 20 }, (_, id) => ({ id, name: `p${id}`, cpu: 1, status: 'online' }))
  model.seed({ processes: rows })
  model.visibleRows(5)
  assert.deepEqual(model.shownIds(), [0, 1, 2, 3, 4])
  model.moveTo(12)
  model.visibleRows(5)
  assert.deepEqual(model.shownIds(), [8, 9, 10, 11, 12])
  model.watch([8, 9, 10, 11, 12])
  model.setProcesses(rows)
  assert.equal(model.historyOf(12).length, 1)
  assert.equal(model.historyOf(0).length, 0, 'a summary row is no chart point')
  model.seedHistory({ 0: [{ at: 1, cpu: 5 }, { at: 2, cpu: 6 }] })
  assert.deepEqual(model.seriesOf(0, 'cpu', 10), [5, 6])
  model.watch(null)
  model.setProcesses(rows)
  assert.equal(model.historyOf(0).length, 3)
})

test('issue 27: a processChanges push updates the rows in it, drops the removed ones, and charts only the watched rows in it', () => {
  let t = 0
  const model = new MonitModel({ now: () => t })
  model.seed({ processes: [0, 1, 2, 3].map((id) => ({ id, name: 'a', status: 'online', cpu: 1 })) })
  model.watch([1])
  t = 1000
  model.applyChanges({ rows: [{ id: 1, name: 'a', status: 'online', cpu: 7, pid: 11 }, { id: 3, name: 'a', status: 'errored', cpu: 0 }], removed: [2] })
  assert.deepEqual(model.processes.map((p) => [p.id, p.status, p.cpu]), [[0, 'online', 1], [1, 'online', 7], [3, 'errored', 0]])
  assert.deepEqual(model.seriesOf(1, 'cpu', 10), [7])
  assert.equal(model.historyOf(0).length, 0, 'not in the push: no point')
  assert.equal(model.historyOf(3).length, 0, 'a summary row: no point')
  model.applyChanges({ rows: [{ id: 4, name: 'b', status: 'launching', cpu: 0 }], removed: [] })
  assert.deepEqual(model.processes.map((p) => p.id), [0, 1, 3, 4], 'a new process in id order')
})
