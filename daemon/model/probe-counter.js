'use strict'

// Kubernetes' thresholds over consecutive probe results. Pure: a state and a result in, the
// next state out.
//   state: { passing, successes, failures }
//   passing turns false after failureThreshold failures in a row, true again after
//   successThreshold successes in a row; `changed` says whether this result flipped it.
function countResult (state, ok, { failureThreshold, successThreshold }) {
  const successes = ok ? state.successes + 1 : 0
  const failures = ok ? 0 : state.failures + 1
  let passing = state.passing
  if (passing && failures >= failureThreshold) passing = false
  else if (!passing && successes >= successThreshold) passing = true
  return { passing, successes, failures, changed: passing !== state.passing }
}

// A probe that has just passed (a readiness gate, a fresh process for liveness).
const PASSING = Object.freeze({ passing: true, successes: 0, failures: 0 })
// One that has not passed yet (a readiness gate that waits for successThreshold successes).
const NOT_YET = Object.freeze({ passing: false, successes: 0, failures: 0 })

module.exports = { countResult, PASSING, NOT_YET }
