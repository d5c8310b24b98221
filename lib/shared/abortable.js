'use strict'

// Waits for `promise` unless `signal` is aborted first (then rejects with the abort reason).
// The promise itself is not cancelled: its owner decides what an abort means.
function abortable (promise, signal) {
  if (!signal) return promise
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => { signal.removeEventListener('abort', onAbort); resolve(value) },
      (err) => { signal.removeEventListener('abort', onAbort); reject(err) })
  })
}

module.exports = { abortable }
