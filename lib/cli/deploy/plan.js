'use strict'

const fs = require('node:fs')
const path = require('node:path')
const sh = require('./remote-script')

// The steps of each command on one host, in order. A step: { name, local, script (what runs),
// shown (what is printed: the env's values hidden), input (stdin text), capture (its output is
// a value: a commit, the process list), input (ssh's stdin: the env) }. run.js carries them out; --dry-run prints them.

function remote (name, script, extra = {}) {
  return { name, local: false, script, shown: extra.shown ?? script, ...extra }
}

function hookStep (name, target, host, { withEnv = false } = {}) {
  const command = target.hooks[name]
  if (!command) return null
  return remote(name, sh.hook(host.path, command, { withEnv }), { command, ...(withEnv ? envStdin(host) : {}) })
}

// The env goes on ssh's stdin; what is printed names it with its values hidden.
function envStdin (host) {
  return { input: sh.envInput(host.env), stdinShown: sh.exportEnv(host.env, { secret: true }) || ':' }
}

// pre-setup: a local script file (its first word names one) is sent to the host's shell on
// stdin, as pm2 deploy does; anything else is a command run there.
function preSetup (target, cwd) {
  const command = target.hooks['pre-setup']
  if (!command) return null
  const file = path.resolve(cwd, command.trim().split(/\s+/)[0])
  let isFile = false
  try { isFile = fs.statSync(file).isFile() } catch {}
  if (!isFile) return remote('pre-setup', command, { command })
  const script = 'if command -v bash >/dev/null 2>&1; then bash -s; else sh -s; fi'
  return remote('pre-setup', script, { shown: `${script} < ${file}`, inputFile: file, command })
}

function setupSteps (target, host, { cwd }) {
  return [
    preSetup(target, cwd),
    remote('mkdir', sh.mkdirs(host.path)),
    remote('clone', sh.clone(host.path, target)),
    remote('link', sh.link(host.path)),
    hookStep('post-setup', target, host)
  ].filter(Boolean)
}

// A release of `ref` (a branch, tag or commit): the steps until the code changes, then the
// ones after it. run.js records the commit before (`head`) to go back to it.
function releaseSteps (target, host, ref, { health = true, who = 'xpm', force = false } = {}) {
  const pdl = target.hooks['pre-deploy-local']
  return [
    pdl ? { name: 'pre-deploy-local', local: true, script: pdl, shown: pdl, command: pdl } : null,
    hookStep('pre-deploy', target, host),
    remote('head', sh.head(host.path), { capture: 'previous' }),
    remote('fetch', sh.fetch(host.path, target)),
    remote('reset', sh.reset(host.path, ref, { force }), { changes: true }),
    remote('link', sh.link(host.path)),
    hookStep('post-deploy', target, host, { withEnv: true }),
    health ? healthStep(target, host) : null,
    remote('log', sh.logRelease(host.path, who), { capture: 'commit' })
  ].filter(Boolean)
}

// Back to `commit` after a failed release: the code, the link, post-deploy and the check again.
// unlog: the commit this run logged on the host, taken back out of its release log.
function revertSteps (target, host, commit, { health = true, unlog = null } = {}) {
  return [
    unlog ? remote('unlog', sh.unlogRelease(host.path, unlog)) : null,
    remote('revert', sh.reset(host.path, commit, { force: true })),
    remote('link', sh.link(host.path)),
    hookStep('post-deploy', target, host, { withEnv: true }),
    health ? healthStep(target, host) : null
  ].filter(Boolean)
}

function healthStep (target, host) {
  return remote('health', sh.jlist(host.path), { capture: 'health', apps: target.apps || [], ...envStdin(host) })
}

// revert n: which commit, read from the host's release log.
function findReleaseStep (host, n) {
  return remote('find release', sh.nthRelease(host.path, n), { capture: 'ref' })
}

// One-step commands; `value` steps print their output as the answer.
function querySteps (command, target, host, arg) {
  switch (command) {
    case 'current': return [remote('current', sh.current(host.path), { value: true })]
    case 'previous': return [remote('previous', sh.previous(host.path), { value: true })]
    case 'list': return [remote('list', sh.list(host.path), { value: true })]
    case 'exec': return [remote('exec', sh.exec(host.path, arg), { value: true })]
    case 'status': return [
      remote('status', sh.status(host.path), { capture: 'status' }),
      { ...healthStep(target, host), optional: true }
    ]
  }
  throw new Error(`no such deploy command ${command}`)
}

module.exports = { setupSteps, releaseSteps, revertSteps, findReleaseStep, querySteps, healthStep }
