'use strict'

// Every way xpm writes a byte count or a duration, in one place. Pure, and loaded as is by the
// web dashboard's page (lib/cli/web/assets.js), so it requires nothing.
//
// For a person reading a figure (`list`, `show`, `monit`, the dashboard):
//   formatBytes:    binary multiples (1 KB = 1024 B, as '10M' in a config), one decimal below
//                   100 of a unit, none from 100 up: 512 B, 1.5 KB, 812 KB, 52.0 MB, 1.2 GB.
//   formatDuration: under a second in milliseconds with 3 significant digits (1.23 ms, 45.7 ms,
//                   201 ms: event-loop delay, latencies); from a second up in the largest whole
//                   unit, rounded down (45s, 3m, 2h, 4d: uptimes). Zero is plain 0.
//   formatUptime:   formatDuration in whole units: under a second reads 0s.
// All show a missing, non-finite or negative value as '-'.
//
// The config form, exact, so it parses back (lib/shared/units.js) to the same value: what an ecosystem
// file, `xpm ecosystem` or a reason quoting an option writes ('10M', '1500B', '5s', '1m'):
//   configBytes, configDuration.
//   formatMb: a measured size next to a configured one in a reason, one decimal: '93.5M'.
//   formatMs: a restart policy's window in a reason, in seconds or milliseconds: '60s', '1500ms'
//             (not configDuration's '1m': the reasons read so since the first release).

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB']
const DURATION_UNITS = [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]]

function isQuantity (n) {
  return typeof n === 'number' && Number.isFinite(n) && n >= 0
}

function formatBytes (bytes) {
  if (!isQuantity(bytes)) return '-'
  let n = bytes
  let i = 0
  while (n >= 1024 && i < BYTE_UNITS.length - 1) {
    n /= 1024
    i++
  }
  if (i === 0) return `${Math.round(n)} B`
  if (n >= 99.95) {
    const whole = Math.round(n)
    // 1023.7 KB rounds to the next unit rather than printing '1024 KB'
    return whole >= 1024 && i < BYTE_UNITS.length - 1 ? `1.0 ${BYTE_UNITS[i + 1]}` : `${whole} ${BYTE_UNITS[i]}`
  }
  return `${n.toFixed(1)} ${BYTE_UNITS[i]}`
}

function formatDuration (ms) {
  if (!isQuantity(ms)) return '-'
  if (ms === 0) return '0' // a stopped process's uptime, an idle loop's delay: no unit needed
  if (ms < 9.995) return `${ms.toFixed(2)} ms`
  if (ms < 99.95) return `${ms.toFixed(1)} ms`
  if (ms < 999.5) return `${Math.round(ms)} ms`
  for (const [unit, factor] of DURATION_UNITS) {
    if (ms >= factor) return `${Math.floor(ms / factor)}${unit}`
  }
  return '1s' // 999.5 ms up to a second
}

// An uptime: whole units only, so a process online for 7 ms reads 0s, not '7.00 ms'.
function formatUptime (ms) {
  return isQuantity(ms) && ms > 0 && ms < 1000 ? '0s' : formatDuration(ms)
}

function configBytes (bytes) {
  for (const [unit, factor] of [['G', 1024 ** 3], ['M', 1024 ** 2], ['K', 1024]]) {
    if (bytes >= factor && bytes % factor === 0) return `${bytes / factor}${unit}`
  }
  return `${bytes}B`
}

function configDuration (ms) {
  for (const [unit, factor] of DURATION_UNITS) {
    if (ms >= factor && ms % factor === 0) return `${ms / factor}${unit}`
  }
  return `${ms}ms`
}

function formatMb (bytes) {
  return `${(bytes / 1024 / 1024).toFixed(1)}M`
}

function formatMs (ms) {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`
}

module.exports = { formatBytes, formatDuration, formatUptime, configBytes, configDuration, formatMb, formatMs }
