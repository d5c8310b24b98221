'use strict'

// `reload --hosts`: a rolling reload across hosts, --parallel N at a time (default 1). A host
// passes when its reload exits 0 and then every process of the reloaded apps (but those a user
// stopped) is online and ready; the next batch starts only then. The first host that does not
// pass stops the rollout: the hosts after it are not touched. Every host must be reachable
// before the first one is reloaded (a rollout that cannot finish does not start).
const { XpmError } = require('../../shared/errors')
const { runOne, wireError } = require('./each-host')

const HEALTH_TIMEOUT = 60000
const POLL_MS = 250

async function rollout (action, fleet, ctx, rest, options) {
  const { io } = ctx
  const parallel = parseParallel(options.parallel)
  const state = new Map(fleet.hosts.map((e) => [e.label, { host: e.label, state: 'not touched' }]))
  const down = fleet.hosts.filter((e) => !e.client)
  if (down.length) {
    for (const e of down) Object.assign(state.get(e.label), { state: 'unreachable', error: e.error })
    return finish(io, state, options, new XpmError('XPM_ERR_ROLLOUT_STOPPED',
      `rollout not started: ${down.map((e) => e.label).join(', ')} cannot be reached; no host was reloaded`))
  }
  const targets = targetsOf(ctx, rest)
  for (let i = 0; i < fleet.hosts.length; i += parallel) {
    const batch = fleet.hosts.slice(i, i + parallel)
    if (!options.json) io.say(`[xpm] reloading ${batch.map((e) => e.label).join(', ')} (${i + batch.length} of ${fleet.hosts.length})\n`)
    await Promise.all(batch.map(async (e) => {
      const s = state.get(e.label)
      s.state = 'reloading'
      const r = await runOne(e, action, ctx, rest, { live: !options.json })
      if (options.json) s.steps = require('./each-host').jsonOf(r).result
      if (r.error || r.code !== 0) return Object.assign(s, { state: 'failed', error: r.error || new XpmError('XPM_ERR_RELOAD_FAILED', `reload exited ${r.code}`) })
      const unhealthy = await healthy(e, targets).catch((err) => err.message)
      if (unhealthy) return Object.assign(s, { state: 'failed', error: new XpmError('XPM_ERR_RELOAD_FAILED', unhealthy) })
      s.state = 'reloaded'
    }))
    const failed = batch.filter((e) => state.get(e.label).state === 'failed')
    if (failed.length) {
      return finish(io, state, options, new XpmError('XPM_ERR_ROLLOUT_STOPPED',
        `rollout stopped at ${failed.map((e) => e.label).join(', ')}: ${failed.map((e) => state.get(e.label).error.message).join('; ')}`))
    }
  }
  return finish(io, state, options, null)
}

function parseParallel (value) {
  if (value === undefined) return 1
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `--parallel takes a number of hosts (1 or more), got "${value}"`)
  return n
}

function targetsOf (ctx, rest) {
  return rest[0]?.targets || ['all']
}

// null once every process of the targets that a user did not stop is online and ready; the
// reason it is not, after HEALTH_TIMEOUT.
async function healthy (entry, targets) {
  const { expandTargets, wire } = require('../targets')
  const deadline = Date.now() + HEALTH_TIMEOUT
  let why = null
  for (;;) {
    if (!entry.client) return entry.error.message
    const target = wire(await expandTargets(entry.client, targets))
    const procs = await entry.client.request('show', { target, fields: ['id', 'name', 'status', 'ready'] })
    const bad = procs.filter((p) => p.status !== 'stopped' && (p.status !== 'online' || p.ready === false))
    if (!bad.length) return null
    why = `not online and ready after ${HEALTH_TIMEOUT / 1000} s: ${bad.map((p) => `${p.name} (id ${p.id}) ${p.status === 'online' ? 'not ready' : p.status}`).join(', ')}`
    if (Date.now() > deadline) return why
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

// Where each host stands, then the outcome: exit 0 only when every host was reloaded.
function finish (io, state, options, error) {
  const hosts = [...state.values()]
  if (options.json) {
    io.printJson({ ok: !error, hosts: hosts.map((s) => ({ host: s.host, state: s.state, ...(s.steps ? { steps: s.steps } : {}), ...(s.error ? { error: wireError(s.error) } : {}) })) })
  } else {
    for (const s of hosts) io.say(`[xpm] ${s.host}: ${s.state}${s.error ? ` (${s.error.message})` : ''}\n`)
  }
  if (error) throw error
  return 0
}

module.exports = { rollout, healthy, HEALTH_TIMEOUT }
