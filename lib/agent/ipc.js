'use strict'

// The agent's only way to talk to the daemon. A callback is always passed: without one, Node
// turns a failed write (EPIPE, closed channel) into an 'error' event on `process`, which crashes
// an app that has no listener for it. At most one message is in flight, so a daemon that stops
// reading cannot make the worker queue reports without bound.
let inFlight = false

function done () {
  inFlight = false
}

function connected () {
  return typeof process.send === 'function' && process.connected === true
}

function send (message) {
  if (inFlight || process.connected !== true) return false
  inFlight = true
  try {
    process.send(message, done)
  } catch {
    inFlight = false
    return false
  }
  return true
}

// A message that must not be dropped, and of which there are only a few (one per listen):
// sent even while a report is in flight.
function sendOnce (message) {
  if (process.connected !== true) return false
  try {
    process.send(message, () => {})
  } catch {
    return false
  }
  return true
}

module.exports = { send, sendOnce, connected }
