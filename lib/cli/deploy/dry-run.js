'use strict'

const plan = require('./plan')
const { showSsh } = require('./ssh')

// `xpm deploy … --dry-run`: each host's steps, as the command lines that would run (the env's
// values hidden), and nothing run.

function renderPlan (target, options, { cwd, env }) {
  const { verb, parallel } = options
  const lines = []
  const isRelease = verb === 'release'
  const ref = options.n ? '<commit>' : (options.ref || target.ref)
  lines.push(`[xpm] deploy ${target.name} --dry-run: ${describe(options, target)} on ${target.hosts.length} host(s), ${parallel} at a time; nothing is run`)
  for (const host of target.hosts) {
    let steps
    if (verb === 'setup') steps = plan.setupSteps(target, host, { cwd })
    else if (isRelease) {
      steps = plan.releaseSteps(target, host, ref, { health: options.health, who: 'you' })
      if (options.n) steps.unshift({ ...plan.findReleaseStep(host, options.n), name: 'find release (<commit>)' })
    } else steps = plan.querySteps(verb, target, host, options.command)
    for (const step of steps) {
      const line = step.local ? `(local) ${step.shown}` : showSsh(host, step.shown, env)
      lines.push(`[${host.label}] ${step.name}: ${line}${step.stdinShown ? ` <<< ${JSON.stringify(step.stdinShown)}` : ''}`)
      if (step.capture === 'health') lines.push(`[${host.label}]   expects online: ${step.apps.length ? step.apps.join(', ') : '(the file names no app)'}`)
    }
  }
  if (isRelease) {
    lines.push(options.revert
      ? '[xpm] a host that fails from reset on goes back to the commit it ran (reset, link, post-deploy, health), and so do the hosts already released; the rollout stops'
      : '[xpm] --no-revert: a host that fails stays as it is; the rollout stops')
  }
  return lines.join('\n') + '\n'
}

function describe (options, target) {
  if (options.verb === 'release') return options.n ? `revert ${options.n}` : `release of ${options.ref || target.ref}`
  if (options.verb === 'exec') return 'exec'
  return options.verb
}

module.exports = { renderPlan }
