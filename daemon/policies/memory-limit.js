'use strict'

const { configBytes, formatMb } = require('../../lib/shared/quantity')

// max_memory_restart: is this instance's latest sample over its limit? Pure.
// A sample taken from an earlier process of the slot (other pid, or taken before the current
// process came online) says nothing about the current one, so it never triggers a restart.
// → null, or { rss, limit, reason: 'memory (93.4M > 80M)' }
function checkMemory ({ limit, sample, pid, since = 0 }) {
  if (!limit || !sample || !pid) return null
  const rss = sample.memory
  if (typeof rss !== 'number' || !(rss > limit)) return null
  if (sample.pid !== undefined && sample.pid !== pid) return null
  if (typeof sample.at === 'number' && sample.at < since) return null
  return { rss, limit, reason: `memory (${formatMb(rss)} > ${configBytes(limit)})` }
}

// A sample of the current process, taken since it came online, at or under the limit: the
// process did run within its limit (a later memory restart is then a stable run). Pure.
function isWithinLimit ({ limit, sample, pid, since = 0 }) {
  if (!limit || !sample || !pid || typeof sample.memory !== 'number') return false
  if (sample.pid !== undefined && sample.pid !== pid) return false
  if (typeof sample.at === 'number' && sample.at < since) return false
  return sample.memory <= limit
}

module.exports = { checkMemory, isWithinLimit }
