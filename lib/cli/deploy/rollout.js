'use strict'

const plan = require('./plan')
const { runSteps } = require('./host-steps')

// A release across the hosts of a target: rolling, `parallel` hosts at a time. A host is
// released when its post-deploy exits 0 and its apps are online (the health gate). When one
// fails, the rollout stops before the next batch and, unless --no-revert, every host this run
// changed goes back to the commit it ran before (post-deploy and the check again).
// Each host's state: { host, result, previous, commit, failure, changed, revertFailure }.

async function release (ctx, target, { ref, revertN = null, parallel = 1, revert = true, health = true, force = false }) {
  const states = target.hosts.map((host) => ({ host, result: 'not started' }))
  let stopped = false
  for (let i = 0; i < states.length && !stopped; i += parallel) {
    const batch = states.slice(i, i + parallel)
    await Promise.all(batch.map((state) => releaseHost(ctx, target, state, { ref, revertN, health, force })))
    stopped = batch.some((s) => s.result === 'failed') || Boolean(ctx.signal?.aborted)
  }
  if (stopped && revert) {
    const changed = states.filter((s) => s.changed && s.previous)
    await eachLimited(changed, parallel, (state) => revertHost(ctx, target, state, { health }))
  }
  return states
}

async function releaseHost (ctx, target, state, { ref, revertN, health, force }) {
  const { host } = state
  state.result = 'running'
  if (revertN !== null) {
    if (!await runSteps(ctx, host, [plan.findReleaseStep(host, revertN)], state)) {
      state.result = 'failed'
      return
    }
    ref = state.ref
    ctx.write(host, `○ reverting ${revertN} release(s): to ${ref.slice(0, 7)}`)
  }
  ctx.write(host, `○ deploying ${ref}`)
  const ok = await runSteps(ctx, host, plan.releaseSteps(target, host, ref, { health, who: ctx.who, force }), state)
  state.result = ok ? 'released' : 'failed'
}

async function revertHost (ctx, target, state, { health }) {
  const { host } = state
  const why = state.result === 'failed' ? 'its release failed' : 'the rollout failed'
  ctx.write(host, `○ auto-revert (${why}): back to ${state.previous.slice(0, 7)}`)
  const revertState = { host }
  const ok = await runSteps({ ...ctx, signal: null }, host, plan.revertSteps(target, host, state.previous, { health, unlog: state.result === 'released' ? state.commit : null }), revertState)
  state.reverted = ok
  if (ok) state.commit = state.previous
  else state.revertFailure = revertState.failure
  if (state.result === 'released') state.result = ok ? 'reverted' : 'revert failed'
  else state.result = ok ? 'failed, reverted' : 'failed, revert failed'
}

// setup, exec and the one-step commands: on every host, `parallel` at a time, none stopping the others.
async function everyHost (ctx, target, stepsOf, { parallel }) {
  const states = target.hosts.map((host) => ({ host, result: 'not started' }))
  await eachLimited(states, parallel, async (state) => {
    state.result = 'running'
    const ok = await runSteps(ctx, state.host, stepsOf(state.host), state)
    state.result = ok ? 'ok' : 'failed'
  })
  return states
}

async function eachLimited (items, limit, fn) {
  let next = 0
  const worker = async () => {
    while (next < items.length) await fn(items[next++])
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
}

module.exports = { release, everyHost }
