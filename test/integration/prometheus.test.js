'use strict'

// The daemon's Prometheus endpoint (XPM_METRICS), on a real daemon with real workers under a
// real HTTP load: every process shows with the names of issue 19 and labels app, id, instance;
// the text passes `promtool check metrics`; a restart and a reload move the counters; the
// reload under load loses no request.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { createHome, waitFor, freePort, httpGet, fixture } = require('../helpers/xpm')
const { startLoad } = require('../helpers/load')

const PER_PROCESS = [
  'xpm_process_up', 'xpm_process_ready', 'xpm_process_restarts_total', 'xpm_process_cpu_seconds_total',
  'xpm_process_resident_memory_bytes', 'xpm_process_heap_used_bytes', 'xpm_process_heap_total_bytes',
  'xpm_process_event_loop_delay_seconds', 'xpm_process_event_loop_utilization', 'xpm_process_start_time_seconds'
]

function parse (text) {
  return text.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => {
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(l)
    const labels = {}
    for (const [, k, v] of (m[2] || '').matchAll(/(\w+)="([^"]*)"/g)) labels[k] = v
    return { name: m[1], labels, value: Number(m[3]) }
  })
}

const has = (rows, name, labels) => rows.find((r) => r.name === name && Object.entries(labels).every(([k, v]) => r.labels[k] === v))
const promtoolMissing = spawnSync('promtool', ['--version']).error ? 'promtool is not installed (Debian: apt-get install prometheus; .ci/run installs it)' : null

test('a scrape during load: every process with every name and the labels app, id, instance; promtool passes; restarts and reloads move the counters', async (t) => {
  const h = createHome(t)
  const [appPort, metricsPort] = [await freePort(), await freePort()]
  const env = { XPM_METRICS: `127.0.0.1:${metricsPort}`, PORT: String(appPort) }
  let res = await h.run(['start', fixture('echo-http.js'), '--name', 'api', '-i', '2'], { env })
  assert.equal(res.code, 0, res.stderr)
  res = await h.run(['start', fixture('idle.js'), '--name', 'worker'], { env })
  assert.equal(res.code, 0, res.stderr)
  const scrape = async () => {
    const r = await httpGet(metricsPort, '/metrics')
    assert.equal(r.status, 200, r.body)
    return r.body
  }
  const load = startLoad(appPort, { concurrency: 4 })
  t.after(() => load.stop())
  await waitFor(() => load.stats.ok > 20, { message: 'load flowing' })

  // `list` is someone looking: the agents report every second for a while, so the heap and loop
  // figures are there within a second or two (a scraper alone gets them every 30 s)
  const list = await h.jlist()
  assert.equal(list.length, 3)
  let text
  let rows
  await waitFor(async () => {
    text = await scrape()
    rows = parse(text)
    return list.every((p) => PER_PROCESS.every((name) => has(rows, name, { app: p.name, id: String(p.id), instance: String(p.instance) })))
  }, { timeout: 15000, message: 'every process with every metric in a scrape' }).catch((err) => { throw new Error(`${err.message}\n${text}`) })
  for (const p of list) {
    const labels = { app: p.name, id: String(p.id), instance: String(p.instance) }
    assert.equal(has(rows, 'xpm_process_up', labels).value, 1)
    assert.equal(has(rows, 'xpm_process_ready', labels).value, 1)
    assert.ok(has(rows, 'xpm_process_resident_memory_bytes', labels).value > 1e6)
    assert.ok(has(rows, 'xpm_process_heap_used_bytes', labels).value > 0)
    for (const q of ['0.5', '0.9', '0.99']) assert.ok(has(rows, 'xpm_process_event_loop_delay_seconds', { ...labels, quantile: q }), `quantile ${q}`)
    assert.ok(Math.abs(has(rows, 'xpm_process_start_time_seconds', labels).value - Date.now() / 1000) < 120)
    for (const r of rows.filter((r) => r.labels.id === labels.id)) assert.deepEqual(Object.keys(r.labels).filter((k) => k !== 'quantile').sort(), ['app', 'id', 'instance'])
  }
  assert.ok(has(rows, 'xpm_process_cpu_seconds_total', { app: 'api' }).value > 0, 'the workers served requests')
  assert.ok(has(rows, 'xpm_daemon_info', { version: require('../../package.json').version }))
  assert.equal(has(rows, 'xpm_apps', {}).value, 2)
  if (promtoolMissing) t.diagnostic(`promtool check skipped: ${promtoolMissing}`)
  else {
    const checked = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' })
    assert.equal(checked.status, 0, `promtool check metrics: ${checked.stdout}${checked.stderr}`)
  }

  // a restart and a reload (under load: not one request lost) move the counters
  res = await h.run(['restart', 'worker'])
  assert.equal(res.code, 0, res.stderr)
  res = await h.run(['reload', 'api'])
  assert.equal(res.code, 0, res.stderr + res.stdout)
  const after = parse(await scrape())
  assert.equal(has(after, 'xpm_process_restarts_total', { app: 'worker' }).value, 1)
  for (const p of list.filter((p) => p.name === 'api')) assert.equal(has(after, 'xpm_process_restarts_total', { app: 'api', id: String(p.id) }).value, 1)
  assert.equal(has(after, 'xpm_reloads_total', { app: 'api', result: 'success' }).value, 1)
  await waitFor(() => load.stats.ok > 200, { message: 'more requests after the reload' })
  const stats = await load.stop()
  assert.equal(stats.failed, 0, JSON.stringify(stats.errors))
  assert.match(fs.readFileSync(path.join(h.home, 'daemon.log'), 'utf8'), new RegExp(`metrics and probes on http://127\\.0\\.0\\.1:${metricsPort}/metrics`))
  // the same port answers the probes
  assert.equal((await httpGet(metricsPort, '/livez')).status, 200)
  assert.equal((await httpGet(metricsPort, '/readyz')).status, 200)
})

// /proc/<pid>/stat fields after the command name: utime, stime (13, 14) and starttime (21), in ticks
function procTimes (pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  const hz = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100
  const btime = Number(/^btime (\d+)$/m.exec(fs.readFileSync('/proc/stat', 'utf8'))[1])
  return { cpu: (Number(fields[11]) + Number(fields[12])) / hz, start: btime + Number(fields[19]) / hz }
}

test('the daemon describes itself under prom-client\'s names: its own pid\'s start time, memory, fds and CPU; heap, loop lag, GC', async (t) => {
  const h = createHome(t)
  const metricsPort = await freePort()
  const res = await h.run(['start', fixture('idle.js'), '--name', 'worker'], { env: { XPM_METRICS: `127.0.0.1:${metricsPort}` } })
  assert.equal(res.code, 0, res.stderr)
  const pid = h.daemonPid()
  assert.ok(pid > 0)
  await httpGet(metricsPort, '/metrics') // the first scrape starts the GC observer
  const r = await httpGet(metricsPort, '/metrics')
  assert.equal(r.status, 200)
  const rows = parse(r.body)
  const value = (name, labels = {}) => {
    const row = has(rows, name, labels)
    assert.ok(row, `${name} in the scrape`)
    return row.value
  }
  const proc = procTimes(pid)
  assert.ok(Math.abs(value('process_start_time_seconds') - proc.start) <= 2, `the daemon's start (pid ${pid}): ${proc.start}`)
  const cpu = value('process_cpu_seconds_total')
  assert.ok(cpu > 0 && cpu <= procTimes(pid).cpu + 0.05, `CPU ${cpu} s, /proc says ${proc.cpu}`)
  assert.ok(Math.abs(value('process_cpu_user_seconds_total') + value('process_cpu_system_seconds_total') - cpu) < 1e-6)
  const vmRss = Number(/^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024
  const rss = value('process_resident_memory_bytes')
  assert.ok(Math.abs(rss - vmRss) < vmRss * 0.25, `RSS ${rss}, /proc/${pid}/status ${vmRss}`)
  const fds = fs.readdirSync(`/proc/${pid}/fd`).length
  assert.ok(Math.abs(value('process_open_fds') - fds) <= 4, `fds ${value('process_open_fds')}, /proc/${pid}/fd ${fds}`)
  assert.ok(value('process_max_fds') >= fds)
  assert.ok(value('process_virtual_memory_bytes') > rss)
  const heap = value('nodejs_heap_size_used_bytes')
  assert.ok(heap > 1e6 && heap <= value('nodejs_heap_size_total_bytes') && heap < rss, `heap ${heap}`)
  assert.ok(value('nodejs_external_memory_bytes') > 0)
  const lag = value('nodejs_eventloop_lag_seconds')
  assert.ok(lag >= 0 && lag < 1, `loop lag ${lag}`)
  assert.equal(value('nodejs_version_info', { version: process.version }), 1)
  assert.ok(rows.some((row) => row.name === 'nodejs_active_resources' && row.labels.type && row.value > 0))
  assert.match(r.body, /^# TYPE nodejs_gc_duration_seconds histogram$/m)
  if (!promtoolMissing) {
    const checked = spawnSync('promtool', ['check', 'metrics'], { input: r.body, encoding: 'utf8' })
    assert.equal(checked.status, 0, `promtool check metrics: ${checked.stdout}${checked.stderr}`)
  }
})
