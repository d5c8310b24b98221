'use strict'

const { XpmError } = require('../../shared/errors')
const { renderTable } = require('../table')

// What a deploy printed at its end: one row per host (what it runs now), and the error when a
// host did not end where it was asked to.

const short = (commit) => (commit ? commit.slice(0, 7) : '')

function note (state) {
  const f = state.failure
  const parts = []
  if (f) parts.push(`${f.step}: ${f.reason}`)
  if (state.revertFailure) parts.push(`revert ${state.revertFailure.step}: ${state.revertFailure.reason}`)
  if (state.result === 'failed' && f && !state.changed) parts.push('code unchanged')
  if (state.result === 'failed' && state.changed && !state.reverted) parts.push('left on the failed release (--no-revert)')
  if (state.result === 'not started') parts.push('rollout stopped before this host')
  if (state.apps && !state.apps.absent && !f) parts.push(state.apps.summary)
  return parts.join('; ')
}

// The commit a host runs now, as far as this run knows it.
function runs (state) {
  if (state.commit) return short(state.commit)
  if (state.result === 'failed' && state.changed) return short(state.landed)
  return short(state.previous)
}

function renderSummary (states, tableOptions) {
  const rows = states.map((s) => [s.host.label, s.result, runs(s), note(s)])
  return renderTable(rows, { head: ['host', 'result', 'runs', 'note'], flex: 3, ...tableOptions })
}

// The error of a run where some host failed: host, step, reason, its last output lines.
function failureError (what, states) {
  const failed = states.filter((s) => s.failure || s.revertFailure)
  if (!failed.length && states.every((s) => ['released', 'ok'].includes(s.result))) return null
  const lines = []
  for (const s of failed) {
    const f = s.failure || s.revertFailure
    lines.push(`${s.host.label}: ${f.step} failed — ${f.reason}`)
    for (const line of f.tail.slice(-10)) lines.push(`  | ${line}`)
  }
  const reverted = states.filter((s) => s.reverted).map((s) => s.host.label)
  const untouched = states.filter((s) => s.result === 'not started').map((s) => s.host.label)
  if (reverted.length) lines.push(`reverted to their previous release: ${reverted.join(', ')}`)
  if (untouched.length) lines.push(`not deployed (the rollout stopped): ${untouched.join(', ')}`)
  const first = failed[0]
  const head = first ? `${what} failed on ${failed.map((s) => s.host.label).join(', ')}` : `${what} did not finish`
  return new XpmError('XPM_ERR_DEPLOY_FAILED', [head, ...lines].join('\n'), {
    details: { hosts: states.map((s) => ({ host: s.host.label, result: s.result, commit: s.commit || null, step: s.failure?.step || null })) }
  })
}

// `status`: per host, the commit, its time, the last release logged (when, by whom), the apps.
function renderStatus (states, tableOptions) {
  const rows = states.map((s) => {
    if (s.failure && !s.status) return [s.host.label, '', '', '', `${s.failure.step}: ${s.failure.reason}`]
    const [commitLine = '', logLine = ''] = s.status || []
    const [commit, when] = commitLine.split(' ')
    const [logged, at, by] = logLine.split(' ')
    const release = logged ? `${at || '?'}${by ? ` by ${by}` : ''}${logged.slice(0, 7) !== commit ? ` (logged ${logged.slice(0, 7)})` : ''}` : 'none logged'
    const apps = !s.apps ? '' : s.apps.ok ? s.apps.summary : s.apps.problems.join('; ')
    return [s.host.label, commit || '', when || '', release, apps]
  })
  return renderTable(rows, { head: ['host', 'commit', 'committed', 'released', 'apps'], flex: 4, ...tableOptions })
}

module.exports = { renderSummary, failureError, renderStatus }
