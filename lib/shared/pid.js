'use strict'

const { setTimeout: sleep } = require('node:timers/promises')

// Whether a pid names a live process (EPERM: alive, owned by someone else). 0 and negative
// numbers would address process groups, so they never count as alive.
function isAlive (pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return err.code === 'EPERM'
  }
}

// Waits until a process that is not our child is gone: true once `stillThere()` (default: the
// pid is alive) says no, false when `timeoutMs` passes first. Polled, because only a parent is
// told of an exit; `stillThere` may be async (a check of the pid's start time, so a reused pid
// does not keep us waiting).
async function waitPidGone (pid, { timeoutMs, pollMs = 20, stillThere = () => isAlive(pid), now = Date.now } = {}) {
  const deadline = now() + timeoutMs
  while (await stillThere()) {
    const left = deadline - now()
    if (left <= 0) return false
    await sleep(Math.min(pollMs, left))
  }
  return true
}

module.exports = { isAlive, waitPidGone }
