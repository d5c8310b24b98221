'use strict'

// Graceful stop of one OS process, bounded by killTimeout: the 'shutdown' message when the app
// asks for it; the handle's release (a cluster worker stops taking connections and finishes
// in-flight requests; nothing for a fork child); then the kill signal; SIGKILL at the deadline.
async function stopProcess (handle, { killTimeout = 5000, killSignal = 'SIGINT', shutdownWithMessage = false } = {}) {
  if (handle.exited) return handle.exitInfo
  const exited = new Promise((resolve) => handle.once('exit', resolve))
  const deadline = Date.now() + killTimeout
  const left = () => Math.max(0, deadline - Date.now())
  const sentMessage = shutdownWithMessage && handle.send('shutdown')

  await raceTimeout([exited, handle.release()], left())
  if (!handle.exited && !sentMessage) handle.signal(killSignal)

  if (await raceTimeout([exited], left())) return handle.exitInfo
  handle.signal('SIGKILL')
  await raceTimeout([exited], 5000)
  return handle.exitInfo
}

async function raceTimeout (promises, ms) {
  let timer
  const timeout = new Promise((resolve) => { timer = setTimeout(resolve, ms, false) })
  try {
    return await Promise.race([...promises.map((p) => p.then(() => true)), timeout])
  } finally {
    clearTimeout(timer)
  }
}

module.exports = { stopProcess, raceTimeout }
