'use strict'

const { PointRing } = require('../../lib/shared/point-ring')

// The metric history of one process, compact: POINT_FIELDS as 8-byte floats (64 bytes a point)
// in a ring that grows as points arrive (lib/shared/point-ring.js).
const POINT_FIELDS = ['at', 'cpu', 'memory', 'heapUsed', 'heapTotal', 'elP95', 'elP99', 'elu']
const POINT_BYTES = POINT_FIELDS.length * Float64Array.BYTES_PER_ELEMENT

class PointHistory extends PointRing {
  constructor () {
    super(POINT_FIELDS)
  }
}

const SEED_POINTS = 8000 // history points in a subscribe reply, all processes together (~0.5 MB)

// The recent history of many processes at once (metrics: their `history(id, options)`), for a
// dashboard's first frame: the points of the last historySize full-rate intervals, at most
// SEED_POINTS over all of them (fewer each past 66 processes), with the point figures `fields`
// names (all without).
function recentHistory (metrics, ids, { fields = null } = {}) {
  const keys = fields
    ? POINT_FIELDS.filter((f) => f === 'at' || fields.includes(f) || fields.includes(`metrics.${f}`) || fields.includes('metrics'))
    : POINT_FIELDS
  const max = Math.max(1, Math.min(metrics.historySize, Math.floor(SEED_POINTS / Math.max(1, ids.length))))
  const since = metrics.clock() - metrics.historySize * metrics.fullMs
  const out = {}
  for (const id of ids) out[id] = metrics.history(id, { since, max, fields: keys })
  return out
}

module.exports = { PointHistory, recentHistory, POINT_FIELDS, POINT_BYTES }
