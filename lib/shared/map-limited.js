'use strict'

// Calls `fn(item)` for every item, at most `limit` at once (a bounded pool): for reads that
// share the libuv thread pool with the daemon's log writes. Resolves when all are done; the
// first rejection rejects it (fn should catch what it can survive).
async function mapLimited (items, limit, fn) {
  let next = 0
  const worker = async () => {
    while (next < items.length) await fn(items[next++])
  }
  await Promise.all(Array.from({ length: Math.max(0, Math.min(limit, items.length)) }, worker))
}

module.exports = { mapLimited }
