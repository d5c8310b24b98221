'use strict'

// Reading figures out of the measures' rows, for the report and the targets.
const { summarize } = require('./stats')

function num (x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—'
  const a = Math.abs(x)
  if (a >= 100 || Number.isInteger(x)) return String(Math.round(x))
  if (a >= 10) return x.toFixed(1)
  return x.toFixed(2)
}

function find (measures, id) {
  for (const m of measures) for (const row of m.rows || []) if (row.id === id) return row
  return null
}

const med = (row, name) => summarize(row?.series[name])?.median
const max = (row, name) => summarize(row?.series[name])?.max

module.exports = { num, find, med, max }
