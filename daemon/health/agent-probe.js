'use strict'

// The daemon's side of the in-worker probes (lib/agent/probe.js): a probe request goes to one
// process's agent as an internal IPC message, and its answer comes back as an agent message
// with the same id. The daemon keeps its own deadline (the worker's loop may be blocked and
// never answer); an exit, or a channel that cannot take the request, is a failed probe.
const CMD = 'NODE_XPM_PROBE'
const states = new WeakMap() // handle → { pending: Map(id → finish), listening }
let nextId = 1

function stateOf (handle) {
  let state = states.get(handle)
  if (state) return state
  state = { pending: new Map() }
  const onMessage = (msg) => {
    if (msg === null || typeof msg !== 'object' || msg['xpm:agent'] !== 'probe') return
    state.pending.get(msg.id)?.({ ok: msg.ok === true, status: Number.isInteger(msg.status) ? msg.status : 0, detail: typeof msg.detail === 'string' ? msg.detail.slice(0, 200) : '' })
  }
  const onExit = () => {
    for (const finish of [...state.pending.values()]) finish({ ok: false, status: 0, detail: 'the process exited' })
  }
  handle.on('message', onMessage)
  handle.once('exit', onExit)
  states.set(handle, state)
  return state
}

// → Promise<{ ok, status, detail }>, never rejected.
function askAgent (handle, { kind, path = null, port = null, timeout }, { timers = { setTimeout, clearTimeout } } = {}) {
  if (handle.exited) return Promise.resolve({ ok: false, status: 0, detail: 'the process exited' })
  const state = stateOf(handle)
  const id = nextId++
  return new Promise((resolve) => {
    const finish = (result) => {
      if (!state.pending.delete(id)) return
      timers.clearTimeout(timer)
      resolve(result)
    }
    const timer = timers.setTimeout(() => finish({ ok: false, status: 0, detail: `no answer within ${timeout} ms` }), timeout)
    timer.unref?.()
    state.pending.set(id, finish)
    // send() also says false when its queue is long (the message still goes): only a closed
    // channel is a failure here
    if (!handle.hasIpc) return finish({ ok: false, status: 0, detail: 'its IPC channel is closed' })
    handle.send({ cmd: CMD, id, kind, path, port, timeout })
  })
}

module.exports = { askAgent, CMD }
