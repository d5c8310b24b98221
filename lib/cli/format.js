'use strict'

// Small display helpers shared by list and show. Pure. Bytes and durations: lib/shared/quantity.js.
function formatPercent (n) {
  return `${Math.round(n || 0)}%`
}

function truncate (text, width) {
  text = String(text)
  return text.length > width ? text.slice(0, Math.max(1, width - 1)) + '…' : text
}

module.exports = { formatPercent, truncate }
