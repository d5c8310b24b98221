'use strict'

const { countResult, NOT_YET } = require('./probe-counter')

// The readiness gate of one process: resolves once its readiness probe has passed
// successThreshold times in a row. After initialDelay, the probe runs every
// min(interval, GATE_RETRY_MS) while the process is not ready yet (a reload waits for it; the
// probe's own interval applies once the process is online). It never fails on its own: the
// caller's deadline (listen_timeout) ends the wait, and `signal` stops it; onResult(result) is
// told every result, so the caller can say what failed last.
const GATE_RETRY_MS = 1000

async function passReadiness (probe, run, { signal, onResult = () => {}, sleep = abortableSleep } = {}) {
  if (probe.initialDelay > 0) await sleep(probe.initialDelay, signal)
  let state = NOT_YET
  const retry = Math.min(probe.interval, GATE_RETRY_MS)
  for (;;) {
    signal?.throwIfAborted()
    const result = await run()
    signal?.throwIfAborted()
    onResult(result)
    state = countResult(state, result.ok, probe)
    if (state.passing) return result
    await sleep(retry, signal)
  }
}

function abortableSleep (ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

module.exports = { passReadiness, abortableSleep, GATE_RETRY_MS }
