'use strict'

// Graceful stop of one OS process, bounded by killTimeout:
//   cluster: ('shutdown' message) → disconnect() so the primary routes no new connection to it and
//            its servers finish in-flight requests → kill signal once it has let go → SIGKILL.
//   fork:    'shutdown' message or the kill signal → SIGKILL.
async function stopProcess (handle, { killTimeout = 5000, killSignal = 'SIGINT', shutdownWithMessage = false } = {}) {
  if (handle.exited) return handle.exitInfo
  const exited = new Promise((resolve) => handle.once('exit', resolve))
  const deadline = Date.now() + killTimeout
  const left = () => Math.max(0, deadline - Date.now())
  const sentMessage = shutdownWithMessage && handle.send('shutdown')

  if (handle.mode === 'cluster') {
    const released = new Promise((resolve) => handle.once('disconnect', resolve))
    handle.disconnect()
    await raceTimeout([exited, released], left())
    if (!handle.exited && !sentMessage) handle.signal(killSignal)
  } else if (!sentMessage) {
    handle.signal(killSignal)
  }

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
