'use strict'

// Shared by the overlap, concurrency and many-apps tests (issue 13): normalized specs, a socket
// client on a test's daemon, quiet points, and the invariants every quiet point must satisfy.

const assert = require('node:assert/strict')
const { waitFor } = require('./wait')
const { describeProc, running, childrenOf } = require('./procs')
const { connect } = require('../../lib/cli/client')
const { resolveStart } = require('../../lib/shared/config')

const TRANSITIONAL = new Set(['launching', 'stopping', 'waiting restart'])

// A normalized spec, as `xpm start <script> <flags>` sends it (flags as commander names them:
// name, instances, minUptime, waitReady, listenTimeout, killTimeout...).
async function specFor (h, script, flags, env = {}) {
  const { specs } = await resolveStart({ target: script, flags, env: { ...h.env, ...env }, cwd: process.cwd() })
  return specs[0]
}

// A socket client on the daemon of this home. The CLI starts the daemon, so it gets the same
// environment as in every other test; the client closes when the test ends.
async function daemonClient (t, h) {
  const ping = await h.run(['ping'])
  assert.equal(ping.code, 0, ping.stderr)
  const c = await connect({ home: h.home, autoStart: false })
  t.after(() => c.close())
  return c
}

// Waits until no process is launching, stopping or waiting for a restart; resolves the list.
// list: a function returning the process list (the CLI's jlist or a socket request).
function quietList (list, { timeout = 30000 } = {}) {
  let last = []
  return waitFor(async () => {
    last = await list()
    // a stopped instance the intent wants up is on its way (a recovery registers before it starts)
    return last.every((p) => !TRANSITIONAL.has(p.status) && !(p.wanted === true && p.status === 'stopped')) && last
  }, { timeout, message: 'every process settled (no launching, stopping or waiting restart)' })
    .catch((err) => { throw new Error(`${err.message}; last list ${rows(last)}`) })
}

function rows (list) {
  return JSON.stringify(list.map((p) => [p.id, p.name, p.status, p.pid]))
}

// The invariants of a quiet point, as a list of problems (empty: all hold): every live child of
// the daemon is a listed pid, every online row's pid is alive.
function trackingProblems (daemonPid, list) {
  const problems = []
  const listed = new Set(list.map((p) => p.pid).filter(Boolean))
  for (const pid of childrenOf(daemonPid)) if (!listed.has(pid)) problems.push(`untracked daemon child ${describeProc(pid)}`)
  for (const p of list) {
    if (p.status === 'online' && !running(p.pid)) problems.push(`${p.name}[${p.instance}] (id ${p.id}) is online but pid ${p.pid} is not alive`)
  }
  return problems
}

function assertTracked (daemonPid, list) {
  const problems = trackingProblems(daemonPid, list)
  assert.deepEqual(problems, [], `${problems.join('\n')}\nlist ${rows(list)}`)
}

function assertNoneAlive (pids, what) {
  const alive = [...new Set(pids)].filter(running)
  assert.deepEqual(alive, [], `${what} still alive: ${alive.map(describeProc).join('; ')}`)
}

// What a command came to: a rejection, or a reply that reports a failure inside it (start
// answers per app, with action 'cancelled' or 'failed' and failures carrying codes; restart and
// startTarget carry failures; reload results carry `failed`). { ok } or { ok: false, code, message }.
function outcomeOf (settled) {
  if (settled.status === 'rejected') return { ok: false, code: settled.reason?.code, message: settled.reason?.message }
  const results = Array.isArray(settled.value) ? settled.value : [settled.value]
  for (const r of results) {
    if (!r || typeof r !== 'object') continue
    const failure = r.failures?.[0]
    if (failure || r.action === 'cancelled' || r.action === 'failed') {
      return {
        ok: false,
        code: failure?.code ?? (r.action === 'cancelled' ? 'XPM_ERR_CANCELLED' : 'XPM_ERR_START_FAILED'),
        message: failure?.message ?? `${r.name}: ${r.action}`
      }
    }
    if (r.failed) return { ok: false, code: 'XPM_ERR_RELOAD_FAILED', message: r.failed.reason ?? JSON.stringify(r.failed) }
  }
  return { ok: true }
}

module.exports = { TRANSITIONAL, specFor, daemonClient, quietList, rows, trackingProblems, assertTracked, assertNoneAlive, outcomeOf }
