'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { MonitModel } = require('../../lib/cli/monit/model')
const render = require('../../lib/cli/monit/render')

// The text a user sees: blessed tags removed, escaped braces restored.
function plain (line) {
  return line.replace(/\{(open|close)\}|\{[^{}]*\}/g, (m, b) => (b === 'open' ? '{' : b === 'close' ? '}' : ''))
}

function proc (id, extra = {}) {
  return { id, name: `app-${id}`, instance: 0, pid: 4000 + id, status: 'online', restarts: 2, uptime: 125_000, cpu: 12.5, memory: 50 * 1024 * 1024, metrics: { heapUsed: 20 * 1024 * 1024, heapTotal: 40 * 1024 * 1024, elP50: 1, elP95: 2.5, elP99: 180, elMax: 200, elu: 0.25 }, ...extra }
}

function modelWith (processes) {
  const model = new MonitModel({ now: () => 0 })
  model.seed({ processes })
  return model
}

test('the header shows online/total, total CPU and memory, and fits the width', () => {
  const model = modelWith([proc(0), proc(1, { status: 'errored' })])
  const line = render.header(model, 100)
  assert.match(line, /1\/2 online/)
  assert.match(line, /CPU 25\.0%/)
  assert.match(line, /MEM 100 MB/)
  assert.match(line, /q quit/)
  assert.equal(line.length, 100)
  assert.ok(render.header(model, 20).length <= 20)
})

test('the list shows id, name, status, CPU and memory within the width and marks the selection', () => {
  const model = modelWith([proc(0), proc(1, { name: 'a-very-long-application-name', status: 'waiting restart' })])
  const lines = render.listLines(model, 40, 10)
  assert.match(plain(lines[0]), /id name +status +cpu +mem/)
  assert.match(lines[1], /^\{inverse\}/)
  assert.match(plain(lines[1]), /0 app-0 +online +12\.5% +50\.0 MB/)
  assert.match(plain(lines[2]), /1 a-very-lo… waiting … +12\.5% +50\.0 MB/)
  for (const line of lines) assert.ok(plain(line).length <= 40, plain(line))
})

test('the list scrolls to keep the selection visible when there are more processes than rows', () => {
  const model = modelWith(Array.from({ length: 20 }, (_, i) => proc(i)))
  model.moveTo(15)
  const lines = render.listLines(model, 40, 5)
  assert.equal(lines.length, 5)
  assert.match(plain(lines[4]), /^ 15 app-15/)
  assert.match(lines[4], /\{inverse\}/)
})

test('names with braces are escaped so they cannot inject blessed tags', () => {
  const model = modelWith([proc(0), proc(1, { name: '{red-fg}x' })])
  const line = render.listLines(model, 40, 5)[2]
  assert.ok(line.includes('{open}red-fg{close}x'))
})

test('with no processes the list says how to start one', () => {
  const lines = render.listLines(modelWith([]), 30, 5)
  assert.match(lines.join(' '), /no processes — start one with `xpm start app\.js`/)
  assert.deepEqual(render.detailLines(modelWith([]), 30, 10), [])
})

test('the detail panel shows pid, uptime, restarts, latency, utilization, heap and two charts', () => {
  const model = modelWith([])
  model.setProcesses([proc(3, { cpu: 10 })])
  model.setProcesses([proc(3, { cpu: 30 })])
  const lines = render.detailLines(model, 60, 16).map(plain)
  const text = lines.join('\n')
  assert.match(text, /app-3 #3 +instance 0 +online +pid 4003/)
  assert.match(text, /uptime 2m +restarts 2/)
  assert.match(text, /p95 2\.50 ms +p99 180 ms +util 25\.0%/)
  assert.match(text, /heap 20\.0 MB \/ 40\.0 MB/)
  assert.match(text, /CPU 30\.0% +max 30\.0%/)
  assert.match(text, /heap 20\.0 MB +max 20\.0 MB/)
  assert.ok(lines.some((l) => /█$/.test(l)), 'a chart column for the latest point')
  assert.equal(lines.length, 16)
  for (const line of lines) assert.ok(line.length <= 60, line)
})

test('the detail panel drops the charts when short and says when there are no agent metrics', () => {
  const model = modelWith([proc(0, { metrics: null })])
  const lines = render.detailLines(model, 60, 5).map(plain)
  assert.equal(lines.length, 4)
  assert.match(lines.join('\n'), /event loop - +\(no agent metrics\)/)
})

test('log lines show a clock, strip terminal escapes and mark stderr', () => {
  const model = modelWith([proc(0)])
  assert.deepEqual(render.logLines(model).map(plain), ['no output yet'])
  model.addLog({ id: 0, stream: 'out', time: new Date(2024, 0, 1, 9, 8, 7).getTime(), line: '\x1b[32mok\x1b[0m {json}' })
  model.addLog({ id: 0, stream: 'err', time: 0, line: 'boom' })
  const lines = render.logLines(model)
  assert.equal(plain(lines[0]), '09:08:07 ok {json}')
  assert.match(lines[1], /\{red-fg\}boom/)
})

test('a log line read back from a file (no time) shows --:--:--', () => {
  const model = new MonitModel()
  model.seed({ processes: [{ id: 0, name: 'a', instance: 0, status: 'online' }] })
  model.seedLogs(0, [{ time: null, stream: 'out', line: 'from the file' }])
  assert.deepEqual(render.logLines(model), ['--:--:-- from the file'])
})
