'use strict'

const fc = require('fast-check')

// Seeded, time-boxed property runs. The seed is printed (t.diagnostic) and is in fast-check's
// failure message; XPM_TEST_SEED=<n> replays a run. XPM_FUZZ_MS stretches the time box.
function fuzzSeed () {
  const given = process.env.XPM_TEST_SEED
  if (given !== undefined && given !== '') {
    const seed = Number(given)
    if (!Number.isSafeInteger(seed)) throw new Error(`XPM_TEST_SEED must be an integer, got ${given}`)
    return seed | 0
  }
  return (Date.now() ^ (Math.random() * 0x7fffffff)) | 0
}

// fc.assert options: at most numRuns runs, and none started after timeMs.
function fuzzOptions (t, { timeMs = 3000, numRuns = 100000 } = {}) {
  const seed = fuzzSeed()
  const ms = Number(process.env.XPM_FUZZ_MS) || timeMs
  t.diagnostic(`fast-check seed ${seed} (replay: XPM_TEST_SEED=${seed}), time box ${ms} ms`)
  return { seed, numRuns, plugins: [fc.interruptAfterTimeLimit(ms)] }
}

module.exports = { fc, fuzzSeed, fuzzOptions }
