'use strict'

const fs = require('node:fs')
const { run, sshCommand, localCommand, sshTrouble } = require('./ssh')
const { isSharingNote } = require('./ssh-reuse')
const { NO_XPM, DIRTY } = require('./remote-script')

// Carries out the steps of one host (plan.js), printing each one and its output with the host's
// prefix. A step's failure: { step, code, tail, reason }.

// ctx: { io, env, cwd, write(host, line), answer(host, line), signal, healthTimeout, clock }
async function runSteps (ctx, host, steps, state) {
  for (const step of steps) {
    if (ctx.signal?.aborted && !step.optional) return fail(state, step, { code: 130, tail: [], reason: 'interrupted (Ctrl-C)' })
    const ok = await runStep(ctx, host, step, state)
    if (!ok && !step.optional) return false
  }
  return true
}

async function runStep (ctx, host, step, state) {
  if (!step.capture && !step.value) ctx.write(host, `○ ${step.name}${step.command ? ` \`${step.command}\`` : ''}`)
  if (step.capture === 'health') return health(ctx, host, step, state)
  const r = await exec(ctx, host, step)
  if (r.code !== 0) return fail(state, step, { code: r.code, tail: r.tail, reason: ctx.signal?.aborted ? 'interrupted (Ctrl-C)' : reasonOf(r, step, host) })
  const value = r.stdout.trim()
  if (step.capture === 'previous') state.previous = value.split('\n').pop()
  if (step.capture === 'commit') state.commit = value.split('\n').pop()
  if (step.capture === 'ref') state.ref = value.split('\n').pop()
  if (step.capture === 'status') state.status = value.split('\n')
  if (step.changes) {
    state.changed = true
    state.landed = value.split('\n').pop()
  }
  return true
}

const SHA = /^[0-9a-f]{40}$/ // the commit a step prints last for us, not for the reader

function exec (ctx, host, step) {
  const onLine = (line) => {
    if (ctx.reuse && isSharingNote(line)) return
    if (step.value) ctx.answer(host, line)
    else if (!step.capture && !SHA.test(line)) ctx.write(host, `  ${line}`)
  }
  const input = step.inputFile ? fs.readFileSync(step.inputFile, 'utf8') : step.input ?? null
  const command = step.local ? localCommand(step.script) : sshCommand(host, step.script, ctx.env, ctx.reuse)
  return run(command, { onLine, input, env: ctx.env, cwd: step.local ? ctx.cwd : undefined, signal: ctx.signal })
}

function reasonOf (r, step, host) {
  if (r.missing) return `${r.missing} is not installed on this machine (or not on PATH)`
  if (step.local) return `${step.name} exited with ${r.code}`
  if (r.code === 255) return sshTrouble(r.tail, host)
  const text = r.tail.join('\n')
  if (/Permission denied|Read-only file system/.test(text) && ['mkdir', 'clone', 'log'].includes(step.name)) return `${host.path} is not writable by ${host.user || 'the ssh user'} on the host`
  if (step.name === 'clone' && /not found|does not exist|Could not read from remote|not a git repository/i.test(text)) return 'the host could not clone repo: check `repo` and that the host can read it'
  if (step.name === 'clone' && /Remote branch .* not found/i.test(text)) return 'the branch of `ref` is not in repo'
  if (['head', 'fetch'].includes(step.name) && /No such file or directory|can't cd|cannot cd|not a git repository/i.test(text)) return `${host.path}/source is missing: run \`xpm deploy <env> setup\` first`
  if (step.name === 'reset' && r.code === 3 && r.stdout.includes(DIRTY)) {
    return `${host.path}/source has tracked files changed on the host (below), which the release would discard: ` +
      `commit them to the repository, or undo them there (git -C ${host.path}/source checkout -- <file>), or add --force to discard them`
  }
  if (step.name === 'reset' && /unknown revision|ambiguous argument/i.test(text)) return 'the ref is not in the repository after a fetch: push it, or check `ref`'
  if (r.code === 127 && /not found/.test(text)) return `${step.name}: a command is not installed on the host (exit 127)`
  return `${step.name} exited with ${r.code}`
}

function fail (state, step, failure) {
  state.failure = { step: step.name, ...failure }
  return false
}

// The health gate: every app of the file has its processes online (and not unready) in the
// host's `xpm jlist`, checked again each second until healthTimeout. A host without xpm on its
// PATH (its hooks use something else) passes with a note.
async function health (ctx, host, step, state) {
  const deadline = ctx.clock.now() + ctx.healthTimeout
  for (;;) {
    const r = await exec(ctx, host, step)
    if (r.code !== 0) {
      const reason = r.code === 255 ? sshTrouble(r.tail, host) : `\`xpm jlist\` exited with ${r.code}`
      if (step.optional) state.apps = { ok: false, problems: [reason] }
      return step.optional || fail(state, step, { code: r.code, tail: r.tail, reason })
    }
    const verdict = judge(r.stdout, step.apps)
    state.apps = verdict
    if (step.optional) return true
    if (verdict.absent) {
      ctx.write(host, `○ health: ${verdict.summary}; not checked`)
      return true
    }
    if (verdict.ok) {
      ctx.write(host, `○ health: ${verdict.summary}`)
      return true
    }
    if (ctx.clock.now() >= deadline || ctx.signal?.aborted) {
      return fail(state, step, { code: 1, tail: verdict.problems, reason: `apps not online: ${verdict.problems.join('; ')}` })
    }
    await ctx.clock.sleep(1000)
  }
}

// jlist's output → { ok, absent, summary, problems, online, total }.
function judge (stdout, apps) {
  const lines = stdout.split('\n').map((l) => l.trim()).filter(Boolean)
  if (lines.includes(NO_XPM)) return { ok: true, absent: true, summary: 'no xpm on the host\'s PATH', problems: [], online: 0, total: 0 }
  let list = null
  for (const line of lines.reverse()) {
    if (!line.startsWith('[')) continue
    try { list = JSON.parse(line); break } catch {}
  }
  if (!Array.isArray(list)) return { ok: false, problems: ['`xpm jlist` printed no process list'], online: 0, total: apps.length }
  // xpm on the host runs none of the file's apps: its hooks start them with something else
  // (pm2 during a move to xpm), which xpm cannot judge
  if (apps.length && !list.some((p) => apps.includes(p.name))) return { ok: true, absent: true, summary: 'none of the apps is run by xpm here', problems: [], online: 0, total: apps.length }
  const problems = []
  let online = 0
  for (const name of apps) {
    const procs = list.filter((p) => p.name === name)
    const bad = procs.filter((p) => p.status !== 'online' || p.ready === false)
    if (!procs.length) problems.push(`${name} is not running`)
    else if (bad.length) problems.push(`${name}: ${bad.map((p) => `${p.status}${p.ready === false ? ' (not ready)' : ''}`).join(', ')}`)
    else online++
  }
  return { ok: problems.length === 0, problems, online, total: apps.length, summary: `${online}/${apps.length} app(s) online${apps.length ? ` (${apps.join(', ')})` : ''}` }
}

module.exports = { runSteps, judge }
