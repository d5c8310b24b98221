'use strict'

// Summary of a series of numbers: median, min, max, count. Empty or missing series give null.
function summarize (values) {
  const xs = (values || []).filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b)
  if (xs.length === 0) return null
  const mid = xs.length >> 1
  const median = xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2
  return { median, min: xs[0], max: xs[xs.length - 1], n: xs.length }
}

function ratio (a, b) {
  if (!a || !b || !b.median) return null
  return a.median / b.median
}

module.exports = { summarize, ratio }
