'use strict'

// `xpm apply`: the difference between an ecosystem file and what the daemon runs, as a plan.
// Pure: specs and the daemon's state in, actions out; lib/cli/commands/apply.js prints and
// carries it out. One action per app:
//
//   start        in the file, not managed (new), or managed but not running (stopped by hand,
//                a job that failed: the file says it should run / have succeeded)
//   reload       running, and its spec changed: the keys are named (env.NAME for a variable,
//                never its value). Cluster workers are replaced one at a time, no request lost;
//                fork mode restarts one instance at a time (docs/reload.md)
//   scale        running, and only `instances` changed: added or removed, the others untouched
//   restart      running, and a change a reload cannot carry: exec_mode (a fork-mode process
//                holds its port itself, a cluster worker through the daemon: they cannot overlap),
//                reuse_port on or off (the same, between the daemon's socket and the workers')
//   unchanged    running as the file says (or a one-shot job that finished with exit 0): left alone
//   delete       with --prune, managed but not in the file (at all: --only does not widen it)
//   keep         without --prune, managed but not in the file: left alone, and said so
//
// The environment as desired state (docs/ecosystem.md#the-environment-as-desired-state): a
// spec's env is the CLI's environment at the time plus the variables the app's configuration
// sets (env, port, env_file, env_<name>: their names are the spec's `envFromFile`). Only those
// are compared, by value, whatever the shell has: `env: { DB_URL: process.env.DB_URL }` with a
// new DB_URL is a change; a variable the file no longer sets is one too. The caller's other
// variables are not part of it: applying from another shell or folder (PATH, PWD, OLDPWD, TERM)
// changes nothing. A spec from an xpm before envFromFile: the file's variables are those whose
// value differs from the shell's.
//
// autostart: false: an app the file registers without starting it. Managed and stopped is what
// the file says: unchanged (a changed spec is registered again, still not started).

const { OPTIONS } = require('../../shared/config/options')

const RESTART_KEYS = new Set(['execMode'])
const IGNORED_KEYS = new Set(['name', 'instancesFrom', 'envFromFile', 'autostart'])
const EMPTY_LIST_KEYS = new Set(['dependsOn']) // null, undefined and [] mean the same

// desired: normalized specs of the file (the --only selection). fileNames: every app name of the
// file. running: [{ name, spec, instances: [{ status, lastExit }] }] from the daemon. cliEnv:
// the environment the specs were built with.
function planApply ({ desired, fileNames = desired.map((s) => s.name), running, prune = false, cliEnv = {} }) {
  const byName = new Map(running.map((r) => [r.name, r]))
  const actions = []
  for (const spec of desired) {
    const current = byName.get(spec.name)
    if (!current) {
      actions.push({ name: spec.name, action: 'start', reason: 'new', changes: [] })
      continue
    }
    const paths = specChanges(current.spec, spec, cliEnv)
    const changes = paths.map(fileKey)
    const up = current.instances.some((i) => UP.has(i.status))
    if (!up && spec.autostart === false) {
      actions.push(changes.length
        ? { name: spec.name, action: 'start', reason: 'autostart: false: the new spec is registered, not started', changes }
        : { name: spec.name, action: 'unchanged', reason: 'autostart: false: registered, not started', changes })
      continue
    }
    if (!up) {
      const job = spec.autorestart === false
      const finished = current.instances.length > 0 && current.instances.every((i) => i.status === 'stopped' && i.lastExit?.code === 0 && !i.lastExit.signal)
      if (job && finished && !changes.length) {
        actions.push({ name: spec.name, action: 'unchanged', reason: 'a one-shot job that finished (exit 0)', changes })
      } else {
        actions.push({ name: spec.name, action: 'start', reason: job ? 'the job has not run with this spec to success' : 'not running', changes })
      }
      continue
    }
    if (!changes.length) {
      actions.push({ name: spec.name, action: 'unchanged', reason: null, changes })
    } else if (paths.some((c) => RESTART_KEYS.has(c)) || turnsReusePort(current.spec, spec)) {
      const keys = [...paths.filter((c) => RESTART_KEYS.has(c)), ...(turnsReusePort(current.spec, spec) ? ['reusePort'] : [])]
      actions.push({ name: spec.name, action: 'restart', reason: `${keys.map(fileKey).join(', ')} cannot change by a reload`, changes })
    } else if (paths.every((c) => c === 'instances')) {
      actions.push({ name: spec.name, action: 'scale', reason: `${current.spec.instances} → ${spec.instances}`, changes, from: current.spec.instances, to: spec.instances })
    } else {
      actions.push({ name: spec.name, action: 'reload', reason: null, changes })
    }
  }
  const inFile = new Set(fileNames)
  const wanted = new Set(desired.map((s) => s.name))
  for (const r of running) {
    if (wanted.has(r.name)) continue
    if (inFile.has(r.name)) continue // in the file but left out by --only: not this apply's business
    actions.push(prune
      ? { name: r.name, action: 'delete', reason: 'not in the file (--prune)', changes: [] }
      : { name: r.name, action: 'keep', reason: 'not in the file; --prune would delete it', changes: [] })
  }
  return { actions, changes: actions.filter((a) => CHANGING.has(a.action)).length }
}

// reuse_port on or off: a worker in one mode cannot take the port over from one in the other
// (docs/reload.md#changing-reuse_port; the daemon refuses such a reload). A spec without the key
// (an earlier xpm's) is round-robin, as false is.
const turnsReusePort = (from, to) => (from?.reusePort === true) !== (to?.reusePort === true)

const UP = new Set(['online', 'launching', 'waiting restart', 'stopping'])
const CHANGING = new Set(['start', 'reload', 'scale', 'restart', 'delete'])

// A spec path as the file names it: killTimeout → kill_timeout, logs.outFile → out_file; env.NAME
// and fields of no option stay as they are.
const KEY_OF = new Map(OPTIONS.filter((o) => o.target && !o.pattern).map((o) => [o.target, o.key]))
function fileKey (specPath) {
  return specPath.startsWith('env.') ? specPath : KEY_OF.get(specPath) ?? specPath
}

// The keys that differ between the running spec and the file's, sorted: top-level keys, nested
// ones dotted (logs.outFile), environment variables as env.NAME.
function specChanges (from, to, cliEnv = {}) {
  const out = []
  const keys = new Set([...Object.keys(from || {}), ...Object.keys(to || {})])
  for (const key of keys) {
    if (IGNORED_KEYS.has(key)) continue
    if (key === 'env') {
      out.push(...envChanges(from.env || {}, to.env || {}, cliEnv, { fromFile: from.envFromFile, toFile: to.envFromFile }).map((k) => `env.${k}`))
      continue
    }
    const a = canonical(key, from[key])
    const b = canonical(key, to[key])
    if (isObject(a) && isObject(b)) {
      for (const sub of new Set([...Object.keys(a), ...Object.keys(b)])) {
        if (!same(a[sub], b[sub])) out.push(`${key}.${sub}`)
      }
    } else if (!same(a, b)) out.push(key)
  }
  return out.sort()
}

// The variables the file sets whose value the app has not, and those the app got from its file
// that the file no longer sets (unless the shell gives the same value). fromFile/toFile: the
// names each spec's configuration set (envFromFile); without them (a spec of an earlier xpm),
// the file's variables are those whose value differs from the shell's, and none was removed.
function envChanges (from, to, cliEnv, { fromFile = null, toFile = null } = {}) {
  const out = new Set()
  const own = Array.isArray(toFile) ? toFile : Object.keys(to).filter((k) => cliEnv[k] !== to[k])
  for (const k of own) if (from[k] !== to[k]) out.add(k)
  // which of the app's variables came from its file is known only from envFromFile
  const had = Array.isArray(fromFile) ? fromFile : []
  for (const k of had) if (!own.includes(k) && from[k] !== to[k]) out.add(k)
  return [...out].sort()
}

function canonical (key, value) {
  if (value === undefined) return null
  if (EMPTY_LIST_KEYS.has(key) && Array.isArray(value) && value.length === 0) return null
  return value
}

function isObject (v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

// Deep equality of JSON values (specs come from JSON on the socket).
function same (a, b) {
  if (a === b) return true
  if (a === undefined || b === undefined) return (a ?? null) === (b ?? null)
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => same(x, b[i]))
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  for (const k of keys) if (!same(a[k] ?? null, b[k] ?? null)) return false
  return true
}

// The order to carry it out: deletes first (dependents before what they depend on), then every
// other change at once (the daemon orders the starts by depends_on).
function deleteOrder (actions, running) {
  const deps = new Map(running.map((r) => [r.name, r.spec?.dependsOn || []]))
  const deletes = actions.filter((a) => a.action === 'delete').map((a) => a.name)
  const set = new Set(deletes)
  const out = []
  const seen = new Set()
  const visit = (name) => {
    if (seen.has(name)) return
    seen.add(name)
    // whatever depends on `name` goes first
    for (const other of deletes) if (deps.get(other)?.includes(name)) visit(other)
    out.push(name)
  }
  for (const name of deletes) if (set.has(name)) visit(name)
  return out
}

module.exports = { planApply, specChanges, envChanges, deleteOrder, fileKey, RESTART_KEYS }
