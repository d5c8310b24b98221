'use strict'

const plan = require('./plan')
const rollout = require('./rollout')
const { openReuse } = require('./ssh-reuse')
const { run, sshExit } = require('./ssh')
const { renderSummary, renderStatus, failureError } = require('./summary')

// Runs a parsed `xpm deploy` on the hosts of its target: prints each host's steps with its
// prefix, the summary table at the end, and throws XPM_ERR_DEPLOY_FAILED naming the hosts that
// did not end where they were asked to. Ctrl-C: no new step starts; the hosts this run changed
// are reverted (unless --no-revert), then the summary says what each runs.

const realClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms))
}

async function execute ({ io, target, options, cwd, clock = realClock }) {
  const controller = new AbortController()
  const onInterrupt = () => {
    io.stderr.write('[xpm] deploy: interrupted; finishing the current steps, then reverting what changed\n')
    controller.abort()
  }
  const stopListening = io.onSignals(['SIGINT'], () => {
    stopListening()
    onInterrupt()
  })
  const single = target.hosts.length === 1
  const reuse = openReuse(io.env)
  const ctx = {
    reuse,
    io,
    env: io.env,
    cwd,
    who: who(),
    signal: controller.signal,
    clock,
    healthTimeout: options.healthTimeout,
    write: (host, line) => io.stdout.write(`[${host.label}] ${line}\n`),
    // answers (curr, list, exec…) are printed per host in the file's order once all are in
    answers: new Map(target.hosts.map((host) => [host, []])),
    answer: (host, line) => ctx.answers.get(host).push(single ? `${line}\n` : `[${host.label}] ${line}\n`)
  }
  try {
    return await byVerb(ctx, io, target, options, cwd)
  } finally {
    stopListening()
    await reuse?.close((host) => run(sshExit(host, io.env, reuse), { env: io.env }))
  }
}

// Who released, in the hosts' release log: user@machine of this side.
function who () {
  const os = require('node:os')
  try { return `${os.userInfo().username}@${os.hostname()}` } catch { return 'xpm' }
}

async function byVerb (ctx, io, target, options, cwd) {
  const hosts = `${target.hosts.length} host${target.hosts.length === 1 ? '' : 's'}`
  const { verb, parallel } = options
  if (verb === 'release') {
    const ref = options.ref || target.ref
    const what = options.n ? `revert ${options.n}` : ref
    io.say(`[xpm] deploy ${target.name}: ${what} on ${hosts}, ${parallel} at a time${options.revert ? '' : ' (no auto-revert)'}\n`)
    const states = await rollout.release(ctx, target, { ref, revertN: options.n ?? null, parallel, revert: options.revert, health: options.health, force: options.force })
    io.stdout.write(renderSummary(states, io.tableOptions()))
    const err = failureError(`deploy ${target.name} (${what})`, states)
    if (err) throw err
    io.say(`[xpm] deploy ${target.name}: ${what} released on ${hosts}\n`)
    return 0
  }
  if (verb === 'setup') {
    io.say(`[xpm] deploy ${target.name}: setup of ${hosts}, ${parallel} at a time\n`)
    const states = await rollout.everyHost(ctx, target, (host) => plan.setupSteps(target, host, { cwd }), { parallel })
    io.stdout.write(renderSummary(states, io.tableOptions()))
    const err = failureError(`deploy ${target.name} setup`, states)
    if (err) throw err
    return 0
  }
  const stepsOf = (host) => plan.querySteps(verb, target, host, options.command)
  const states = await rollout.everyHost(ctx, target, stepsOf, { parallel })
  for (const lines of ctx.answers.values()) io.stdout.write(lines.join(''))
  if (verb === 'status') io.stdout.write(renderStatus(states, io.tableOptions()))
  const err = failureError(`deploy ${target.name} ${verb}`, states)
  if (err) throw err
  return 0
}

module.exports = { execute }
