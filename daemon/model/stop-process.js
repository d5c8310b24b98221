'use strict'

// Graceful stop of one OS process and everything it started, bounded by killTimeout:
//  1. the tree is read (process-tree.js) while the process still runs, so its children are
//     found by their parent links before any of them becomes an orphan;
//  2. the 'shutdown' message when the app asks for it; the handle's release: the process drains
//     (keep-alive clients get `Connection: close` and idle ones are closed between requests,
//     launchers/drain.js); a cluster worker stops taking connections and finishes in-flight
//     requests, a fork child with the agent stops accepting and is signalled once drained;
//  3. the kill signal, to the process (its whole group in fork mode) and to every process of
//     its tree outside that group, one pid at a time (a cluster worker shares the daemon's group);
//  4. once the process has exited, its tree is read again (new children, orphans found by their
//     tag), whatever did not get the signal yet gets it, and the stop waits for all of it;
//  5. at the deadline, SIGKILL to the process, its group (even when the process itself has
//     exited) and every process of the tree still alive, until none is left.
// The stop resolves when the whole tree is gone, with the process's own exit. The drain messages
// and the signals to the processes themselves take turns of the event loop (`turns`, the daemon's
// one TurnBudget: lib/shared/turn-budget.js): each wakes its process, which then competes with
// the daemon for the cores, so a stop of many at once spreads them over as many turns as their
// cost asks. Without one, each goes at once.
const AT_ONCE = Object.freeze({ run: async (fn) => fn() })

async function stopProcess (handle, { killTimeout = 5000, killSignal = 'SIGINT', shutdownWithMessage = false, turns = AT_ONCE } = {}) {
  if (handle.exited) {
    await handle.sweep // the leftovers of its exit (handle.js), if that is still under way
    return handle.exitInfo
  }
  handle.markStopRequested()
  const exited = new Promise((resolve) => handle.once('exit', resolve))
  const deadline = Date.now() + killTimeout
  const left = () => Math.max(0, deadline - Date.now())
  const tree = handle.processTree?.() ?? null
  const collected = tree ? tree.collect().catch(() => 0) : Promise.resolve(0)
  const sentMessage = shutdownWithMessage && handle.send('shutdown')

  const released = turns.run(() => handle.release({ killTimeout, signalFollows: !sentMessage }))
  await raceTimeout([exited, released], left())
  await raceTimeout([collected], left())
  if (!handle.exited && !sentMessage) {
    const groupSent = (await turns.run(() => handle.signal(killSignal))) && handle.group > 0
    if (tree) await tree.signal(killSignal, { groupSent }).catch(() => {})
  }

  if (await raceTimeout([exited], left())) {
    if (!tree) return handle.exitInfo
    // The process is gone; its tree gets the rest of kill_timeout. What it left behind (or
    // started meanwhile) gets the signal now if it has not had it.
    try {
      await tree.collect()
      await tree.signal(killSignal)
      if (await tree.settled(left())) return handle.exitInfo
    } catch {}
  }
  await turns.run(() => handle.signal('SIGKILL'))
  if (tree) await tree.killAll().catch(() => {})
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
