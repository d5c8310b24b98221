'use strict'

// Small display helpers shared by list, show and logs. Pure.
function formatBytes (n) {
  if (!n) return '0b'
  const units = ['b', 'kb', 'mb', 'gb', 'tb']
  let i = 0
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++ }
  return `${n >= 100 || i === 0 ? Math.round(n) : n.toFixed(1)}${units[i]}`
}

function formatDuration (ms) {
  if (!ms || ms < 0) return '0'
  const s = Math.floor(ms / 1000)
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m`
  const h = Math.floor(m / 60)
  if (h < 24) return `${h}h`
  return `${Math.floor(h / 24)}D`
}

function formatPercent (n) {
  return `${Math.round(n || 0)}%`
}

function truncate (text, width) {
  text = String(text)
  return text.length > width ? text.slice(0, Math.max(1, width - 1)) + '…' : text
}

module.exports = { formatBytes, formatDuration, formatPercent, truncate }
