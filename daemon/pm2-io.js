'use strict'

// Custom metrics of apps that use PM2's @pm2/io (`io.metric({ name, value })`): the library
// sends them over IPC every second as { type: 'axm:monitor', data: { <name>: { value, unit, … } } }.
// The daemon keeps the last message of each process, as PM2 does, and `jlist --pm2` shows it as
// pm2_env.axm_monitor. A message larger than MAX_BYTES is dropped (kept: the previous one).
const MAX_BYTES = 16 * 1024
const MAX_METRICS = 100

// → the metrics to keep, or undefined when msg is not @pm2/io's (or too large).
function pm2IoMetrics (msg) {
  if (msg?.type !== 'axm:monitor' || msg.data === null || typeof msg.data !== 'object' || Array.isArray(msg.data)) return undefined
  const names = Object.keys(msg.data)
  if (names.length > MAX_METRICS) return undefined
  const text = JSON.stringify(msg.data)
  if (text === undefined || text.length > MAX_BYTES) return undefined
  return JSON.parse(text)
}

module.exports = { pm2IoMetrics }
