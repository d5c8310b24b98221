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

module.exports = { PointHistory, POINT_FIELDS, POINT_BYTES }
