'use strict'

const { PointRing } = require('../../shared/point-ring')

// The dashboard's chart history of one process: time, CPU and heap used per push, 24 bytes a
// point (lib/shared/point-ring.js). `limit` is passed per push: the model lowers it when many processes
// share its budget; older points go first.
const KEYS = ['at', 'cpu', 'heapUsed']

class Series extends PointRing {
  constructor () {
    super(KEYS)
  }
}

module.exports = { Series, SERIES_KEYS: KEYS }
