'use strict'

const { summarize, ratio } = require('./stats')
const { num, find, med, max } = require('./figures')
const { FLOOR_TARGETS } = require('./floor-targets')

const NAMES = { xpm: 'xpm', pm2: 'PM2', raw: 'raw cluster' }

function cell (row, name) {
  const s = summarize(row.series[name])
  if (s) return s.n > 1 ? `${num(s.median)} (${num(s.min)}–${num(s.max)})` : num(s.median)
  if (row.errors?.[name]) return `failed: ${oneLine(row.errors[name])}`
  return 'n/a'
}

function oneLine (text) {
  const t = String(text).replace(/\s+/g, ' ').replace(/\|/g, '/').trim()
  return t.length > 120 ? `${t.slice(0, 117)}…` : t
}

function ratioCell (row, a, b) {
  const r = ratio(summarize(row.series[a]), summarize(row.series[b]))
  return r === null ? '—' : `${r.toFixed(2)}×`
}

// The targets of issues 9 and 13, each checked against the medians (zero-failure targets: the
// worst run).
const TARGETS = [
  {
    text: '`xpm list` in at most a third of PM2\'s time',
    check: (m) => {
      const row = find(m, 'cli.list')
      const r = ratio(summarize(row?.series.xpm), summarize(row?.series.pm2))
      return r === null ? null : { met: r <= 1 / 3, detail: `xpm/PM2 = ${r.toFixed(2)}` }
    }
  },
  {
    text: 'daemon memory at most half of PM2\'s (idle and with 4 apps × 2)',
    check: (m) => {
      const idle = ratio(summarize(find(m, 'memory.idle')?.series.xpm), summarize(find(m, 'memory.idle')?.series.pm2))
      const busy = ratio(summarize(find(m, 'memory.busy')?.series.xpm), summarize(find(m, 'memory.busy')?.series.pm2))
      if (idle === null || busy === null) return null
      return { met: idle <= 0.5 && busy <= 0.5, detail: `xpm/PM2 idle ${idle.toFixed(2)}, busy ${busy.toFixed(2)}` }
    }
  },
  ...['hello', 'cpu'].map((kind) => ({
    text: `cluster throughput (${kind} app) at least 0.97 × plain node:cluster, and at least PM2's`,
    check: (m) => {
      const row = find(m, `throughput.${kind}.rps`)
      const raw = ratio(summarize(row?.series.xpm), summarize(row?.series.raw))
      const pm2 = ratio(summarize(row?.series.xpm), summarize(row?.series.pm2))
      if (raw === null || pm2 === null) return null
      return { met: raw >= 0.97 && pm2 >= 1, detail: `xpm/raw ${raw.toFixed(2)}, xpm/PM2 ${pm2.toFixed(2)}` }
    }
  })),
  {
    text: 'zero failed requests during reload (worst run), PM2\'s count beside it',
    check: (m) => {
      const ka = find(m, 'reload.keepalive.failed')
      const nc = find(m, 'reload.newconn.failed')
      const worst = [max(ka, 'xpm'), max(nc, 'xpm')]
      if (worst.some((w) => w === undefined)) return null
      return {
        met: worst.every((w) => w === 0),
        detail: `xpm worst ${worst[0]} keep-alive / ${worst[1]} new-conn; PM2 median ${num(med(ka, 'pm2'))} / ${num(med(nc, 'pm2'))}`
      }
    }
  },
  {
    text: 'log burst: zero lines lost (worst run), at least as fast as PM2',
    check: (m) => {
      const lost = max(find(m, 'logs.lost'), 'xpm')
      const row = find(m, 'logs.burst')
      const r = ratio(summarize(row?.series.xpm), summarize(row?.series.pm2))
      if (lost === undefined || r === null) return null
      return { met: lost === 0 && r <= 1, detail: `xpm lost ${lost} (worst), time xpm/PM2 ${r.toFixed(2)}` }
    }
  },
  {
    text: '`monit` CPU at most half of PM2\'s',
    check: (m) => {
      const row = find(m, 'monit.cpu')
      const r = ratio(summarize(row?.series.xpm), summarize(row?.series.pm2))
      return r === null ? null : { met: r <= 0.5, detail: `xpm/PM2 = ${r.toFixed(2)}` }
    }
  },
  {
    text: '100 apps online within 1.25 × the floor and no slower than PM2, CLI exits 0 (every run)',
    check: (m) => {
      const row = find(m, 'scale.apps100.online')
      if (!row) return null
      if (!row.series.xpm) return { met: false, detail: `xpm: ${row.errors?.xpm ? oneLine(row.errors.xpm) : 'no figure'}` }
      const floor = ratio(summarize(row.series.xpm), summarize(row.series.raw))
      const pm2 = ratio(summarize(row.series.xpm), summarize(row.series.pm2))
      if (floor === null || pm2 === null) return null
      const codes = find(m, 'scale.apps100.code')?.series.xpm || []
      const runs = Math.max(row.series.raw?.length || 0, row.series.pm2?.length || 0)
      const exits0 = codes.length >= runs && codes.every((c) => c === 0)
      const secs = (x) => `${num(x / 1000)} s`
      return {
        met: floor <= 1.25 && pm2 <= 1 && exits0,
        detail: `xpm ${secs(med(row, 'xpm'))}, PM2 ${secs(med(row, 'pm2'))}, floor ${secs(med(row, 'raw'))}: xpm/floor ${floor.toFixed(2)}, xpm/PM2 ${pm2.toFixed(2)}; xpm CLI exit codes ${codes.join(', ') || 'none'} (${codes.length}/${runs} runs)`
      }
    }
  }
]

// The N-process case of the idle measure (1,000 unless run with --idle-procs): its rows' id
// prefix and N.
function procsCase (measures) {
  const row = measures.find((m) => m.name === 'idle')?.rows?.find((r) => /^idle\.procs\d+\.cpu$/.test(r.id))
  if (!row) return null
  const n = Number(row.id.match(/procs(\d+)/)[1])
  return { prefix: `idle.procs${n}`, n, note: n === 1000 ? '' : ` (measured at ${n} processes, not 1,000)` }
}

// The targets of issue 15 (bench/measures/idle.js).
const IDLE_TARGETS = [
  {
    text: 'idle daemon CPU at 100 apps at most 0.5 % of a core',
    check: (m) => {
      const cpu = med(find(m, 'idle.apps100.cpu'), 'xpm')
      return cpu === undefined ? null : { met: cpu <= 0.5, detail: `xpm ${num(cpu)} %, PM2 ${num(med(find(m, 'idle.apps100.cpu'), 'pm2'))} %` }
    }
  },
  {
    text: 'idle daemon CPU at 1,000 processes at most 3 % of a core',
    check: (m) => {
      const c = procsCase(m)
      const cpu = c && med(find(m, `${c.prefix}.cpu`), 'xpm')
      return cpu === undefined || !c ? null : { met: cpu <= 3 && c.n >= 1000, detail: `xpm ${num(cpu)} %, PM2 ${num(med(find(m, `${c.prefix}.cpu`), 'pm2'))} %${c.note}` }
    }
  },
  {
    text: 'daemon RSS at 100 apps at most PM2\'s',
    check: (m) => {
      const row = find(m, 'idle.apps100.rss')
      const r = ratio(summarize(row?.series.xpm), summarize(row?.series.pm2))
      return r === null ? null : { met: r <= 1, detail: `xpm ${num(med(row, 'xpm'))} MB, PM2 ${num(med(row, 'pm2'))} MB: xpm/PM2 ${r.toFixed(2)}` }
    }
  },
  {
    text: '`list` at 1,000 processes at most 0.5 × PM2\'s',
    check: (m) => {
      const c = procsCase(m)
      const row = c && find(m, `${c.prefix}.list`)
      const r = row ? ratio(summarize(row.series.xpm), summarize(row.series.pm2)) : null
      return r === null ? null : { met: r <= 0.5 && c.n >= 1000, detail: `xpm ${num(med(row, 'xpm'))} ms, PM2 ${num(med(row, 'pm2'))} ms: xpm/PM2 ${r.toFixed(2)}${c.note}` }
    }
  },
  {
    text: '`monit` at 1,000 processes at most 5 % of a core',
    check: (m) => {
      const c = procsCase(m)
      const cpu = c && med(find(m, `${c.prefix}.monit`), 'xpm')
      return cpu === undefined || !c ? null : { met: cpu <= 5 && c.n >= 1000, detail: `xpm ${num(cpu)} %, PM2 ${num(med(find(m, `${c.prefix}.monit`), 'pm2'))} %${c.note}` }
    }
  },
  {
    text: '`xpm list` with 4 apps within 1.5 × the `node -e 0` floor',
    check: (m) => {
      const row = find(m, 'idle.list4')
      const r = ratio(summarize(row?.series.xpm), summarize(row?.series.raw))
      return r === null ? null : { met: r <= 1.5, detail: `xpm ${num(med(row, 'xpm'))} ms, floor ${num(med(row, 'raw'))} ms: ${r.toFixed(2)} ×; PM2 ${num(med(row, 'pm2'))} ms` }
    }
  }
]

function targets (measures) {
  return [...TARGETS, ...IDLE_TARGETS, ...FLOOR_TARGETS].map((t) => {
    let result = null
    try { result = t.check(measures) } catch {}
    return { text: t.text, met: result ? result.met : null, detail: result ? result.detail : 'not measured' }
  })
}

// What no Node-based tool can go below on this machine, next to the target it bounds.
function floorNotes (measures) {
  const notes = []
  const list = find(measures, 'cli.list')
  if (med(list, 'raw') && med(list, 'pm2')) {
    notes.push(`\`node -e 0\` takes ${num(med(list, 'raw'))} ms; a third of PM2's \`list\` is ${num(med(list, 'pm2') / 3)} ms.`)
  }
  const idle = find(measures, 'memory.idle')
  if (med(idle, 'raw') && med(idle, 'pm2')) {
    notes.push(`A bare \`node:cluster\` primary holds ${num(med(idle, 'raw'))} MB RSS; half of PM2's idle daemon is ${num(med(idle, 'pm2') / 2)} MB.`)
  }
  for (const row of scaleFloors(measures)) {
    const floor = med(row, 'raw')
    notes.push(`${row.label.split(':')[0]}: the same number of plain \`node\` processes spawned at once take ${num(floor)} ms to be up; 1.25 × that is ${num(floor * 1.25)} ms.`)
  }
  return notes
}

function scaleFloors (measures) {
  const scale = measures.find((m) => m.name === 'scale')
  return (scale?.rows || []).filter((r) => /^scale\.apps\d+\.online$/.test(r.id) && med(r, 'raw'))
}

// Where a section carried over from an earlier run differs from this run's set-up.
function carriedNote (m, now) {
  const then = m.machine || {}
  const diffs = []
  if (then.cpu && (then.cpu !== now.cpu || then.cores !== now.cores)) diffs.push(`on ${then.cpu} × ${then.cores}`)
  for (const [key, label] of [['node', 'Node'], ['xpm', 'xpm'], ['pm2', 'PM2'], ['loader', 'load generator']]) {
    if (then[key] && then[key] !== now[key]) diffs.push(`${label} ${then[key]}`)
  }
  if (!m.unsetEnv) diffs.push('with `NODE_EXTRA_CA_CERTS` left as the environment had it')
  return `Not rerun in the latest run: measured ${m.date || 'earlier'}${diffs.length ? `, ${diffs.join(', ')}` : ''}`
}

function render (results) {
  const { machine, measures, options } = results
  const out = []
  out.push('# Benchmarks')
  out.push('')
  out.push('Generated by `npm run bench` (`node bench/run.js`): xpm, PM2 and a bare `node:cluster` primary')
  out.push('(`bench/apps/raw-cluster.js`) run the same fixture apps on this machine, in alternating series')
  out.push('(xpm, PM2, raw, xpm, PM2, raw, …). Each cell is the median with min–max over the series; ratios')
  out.push('compare medians. PM2 and autocannon are installed on demand into a temp folder, never into the repo.')
  out.push(`Raw figures: \`bench/results/latest.json\`. ${options.quick ? '**This is a `--quick` run (fewer, shorter runs).**' : ''}`)
  out.push('')
  out.push('Every process the benchmarks start (the contenders\' CLIs, daemons and apps, the floors, the load')
  out.push(`generators) runs with ${(options.unsetEnv || ['NODE_EXTRA_CA_CERTS']).map((v) => `\`${v}\``).join(', ')} unset: with it set, each \`node\` start`)
  out.push('reads and parses the CA bundle it names, which adds tens of ms to every process start on this machine.')
  const carried = measures.filter((m) => m.carried).map((m) => m.title)
  if (carried.length) {
    out.push('')
    out.push(`This run measured ${measures.filter((m) => !m.carried).map((m) => m.title).join(', ') || 'nothing'}; the other sections (${carried.join(', ')}) are carried over from earlier runs, each with the date and set-up it was measured with.`)
  }
  out.push('')
  out.push('## Machine')
  out.push('')
  out.push('| | |')
  out.push('|---|---|')
  out.push(`| CPU | ${machine.cpu} × ${machine.cores} |`)
  out.push(`| RAM | ${machine.ramGB} GB |`)
  out.push(`| OS | ${machine.os} |`)
  out.push(`| Node | ${machine.node} |`)
  out.push(`| xpm | ${machine.xpm} |`)
  out.push(`| PM2 | ${machine.pm2} |`)
  out.push(`| load generator | ${machine.loader} |`)
  out.push(`| date | ${machine.date} |`)
  out.push(`| duration | ${Math.round(results.seconds)} s |`)
  if (machine.load) out.push(`| load average (1, 5, 15 min) | at start ${machine.load.start.join(', ')}; at end ${(machine.load.end || []).join(', ')} (${machine.cores} cores, shared with other work) |`)
  out.push('')
  out.push('## Targets (issues 9, 13, 15 and 27)')
  out.push('')
  out.push('| target | result | figures |')
  out.push('|---|---|---|')
  for (const t of targets(measures)) {
    out.push(`| ${t.text} | ${t.met === null ? 'not measured' : t.met ? 'met' : '**not met**'} | ${t.detail} |`)
  }
  if (results.findings) out.push('', results.findings.trim())
  const floors = floorNotes(measures)
  if (floors.length) {
    out.push('')
    out.push('Floors measured in the same run, for reading the targets:')
    out.push('')
    for (const f of floors) out.push(`- ${f}`)
  }
  for (const m of measures) {
    out.push('')
    out.push(`## ${m.title}`)
    out.push('')
    if (m.description) out.push(m.description, '')
    if (m.carried) out.push(`_${carriedNote(m, machine)}._`, '')
    if (m.error) {
      out.push(`failed: ${oneLine(m.error)}`)
      continue
    }
    const rawName = m.columns?.raw || 'raw cluster'
    out.push(`| measure | unit | xpm | PM2 | ${rawName} | xpm/PM2 | ${m.columns?.ratio || 'xpm/raw'} |`)
    out.push('|---|---|---|---|---|---|---|')
    for (const row of m.rows) {
      out.push(`| ${row.label} | ${row.unit} | ${cell(row, 'xpm')} | ${cell(row, 'pm2')} | ${cell(row, 'raw')} | ${ratioCell(row, 'xpm', 'pm2')} | ${ratioCell(row, 'xpm', 'raw')} |`)
    }
    const notes = m.rows.map((r) => r.note).filter(Boolean)
    if (notes.length) {
      out.push('')
      for (const n of notes) out.push(`${n}.`)
    }
  }
  out.push('')
  return out.join('\n')
}

module.exports = { render, targets, NAMES }
