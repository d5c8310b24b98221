'use strict'

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

module.exports = { isAlive }
