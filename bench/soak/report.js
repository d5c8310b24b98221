'use strict'

// Slopes and the soak's table. A slope is the least-squares line through the readings of the
// second half of the run, per hour: what is still growing once the bounded buffers have filled.
function slopePerHour (readings, key) {
  const last = readings[readings.length - 1]?.minute ?? 0
  const pts = readings.filter((r) => r.minute >= last / 2 && typeof r[key] === 'number')
  if (pts.length < 2) return null
  const mx = pts.reduce((s, r) => s + r.minute, 0) / pts.length
  const my = pts.reduce((s, r) => s + r[key], 0) / pts.length
  let num = 0
  let den = 0
  for (const r of pts) { num += (r.minute - mx) * (r[key] - my); den += (r.minute - mx) ** 2 }
  return den ? +(num / den * 60).toFixed(2) : null
}

const KEYS = [['rssMB', 'RSS', 'MB'], ['heapAfterGcMB', 'heap after GC', 'MB'], ['fds', 'open fds', ''], ['threads', 'threads', ''],
  ['timers', 'ref\'d timers', ''], ['handles', 'active handles', ''], ['children', 'child processes', ''], ['cpuPct', 'CPU', '% of a core']]

function summary (run) {
  const rs = run.readings
  const cpu = rs.map((r) => r.cpuPct).filter((v) => typeof v === 'number')
  const out = { first: rs[0], last: rs[rs.length - 1], slopes: {}, cpuMean: cpu.length ? +(cpu.reduce((a, b) => a + b, 0) / cpu.length).toFixed(1) : null }
  for (const [key] of KEYS) out.slopes[key] = slopePerHour(rs, key)
  return out
}

// A markdown table per contender: one row a minute; then the slopes.
function markdown (runs) {
  const lines = []
  for (const run of runs) {
    lines.push(`${run.name} ${run.version}:`, '')
    lines.push(`| minute | ${KEYS.map(([, label, unit]) => unit ? `${label} (${unit})` : label).join(' | ')} | restarts | failed requests |`)
    lines.push(`|---|${KEYS.map(() => '---').join('|')}|---|---|`)
    for (const r of run.readings) lines.push(`| ${r.minute} | ${KEYS.map(([key]) => r[key] ?? '–').join(' | ')} | ${r.restarts ?? '–'} | ${r.failedRequests} |`)
    const s = summary(run)
    lines.push(`| slope, 2nd half, per hour | ${KEYS.map(([key]) => key === 'cpuPct' ? `mean ${s.cpuMean}` : s.slopes[key] ?? '–').join(' | ')} | | |`, '')
  }
  return lines.join('\n')
}

module.exports = { slopePerHour, summary, markdown, KEYS }
