'use strict'

// The page's buttons: restart, reload, stop and start of an app (by name) or one process (by id),
// with the CLI's semantics (the same daemon methods, the same deadlines) and its messages (the
// same sentences: lib/cli/long-request.js for progress, describeStep for a reload's steps).
// Each action has its own connection, so its progress events are its own; `say` gets each line
// as it happens, and the result says whether the command succeeded as the CLI's exit code would.

const { XpmError, CODES } = require('../../shared/errors')
const { longRequest, progressPrinter, StillWorking } = require('../long-request')

const ACTIONS = ['restart', 'reload', 'stop', 'start']

// A target from the page: an app name, or a process id (a whole number).
function parseTarget (value) {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value
  if (typeof value === 'string' && value.length > 0 && value.length <= 200 && !/[\0\n]/.test(value)) return value
  throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected \`target\` to be an app name or a process id, got ${JSON.stringify(value)?.slice(0, 80)}`)
}

function parseAction (body) {
  if (!body || typeof body !== 'object') throw new XpmError('XPM_ERR_BAD_ARGUMENT', 'Expected a JSON object { action, target }')
  if (!ACTIONS.includes(body.action)) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected \`action\` to be one of ${ACTIONS.join(', ')}, got ${JSON.stringify(body.action)?.slice(0, 80)}`)
  return { action: body.action, target: parseTarget(body.target) }
}

function failedMessage (failures, verb) {
  const first = failures[0]
  return `${failures.length} process(es) did not ${verb}: ${first.message}`
}

// → { ok, code?, message } after calling say(line) for each step.
async function runAction ({ connect, action, target, say }) {
  const client = await connect()
  const label = String(target)
  const onProgress = progressPrinter({ stream: { isTTY: true, write: (s) => say(s.trimEnd()) } })
  try {
    if (action === 'stop') {
      const r = await longRequest(client, 'stop', { target }, { onProgress })
      return ok(`[xpm] stopped ${label} (${r.ids.length} process${r.ids.length === 1 ? '' : 'es'})`)
    }
    if (action === 'start') {
      const r = await longRequest(client, 'startTarget', { target }, { onProgress })
      if (r.failures?.length) return failed('XPM_ERR_START_FAILED', `${failedMessage(r.failures, 'reach online')}; see \`xpm logs ${label}\``)
      if (r.finished?.length) say(`[xpm] finished with exit code 0 before it was ready (autorestart off): id ${r.finished.join(', ')}`)
      return ok(r.ids.length ? `[xpm] started ${label}` : `[xpm] ${label}: already running`)
    }
    if (action === 'restart') {
      const r = await longRequest(client, 'restart', { target }, { onProgress })
      if (r.failures?.length) return failed('XPM_ERR_START_FAILED', failedMessage(r.failures, 'come back online'))
      return ok(`[xpm] restarted ${label}`)
    }
    const { describeStep } = require('../commands/lifecycle')
    client.on('event', ({ event, data }) => {
      if (event !== 'reload.step') return
      const line = describeStep(data)
      if (line) say(line)
    })
    await client.request('reload', { target, specs: null }, { timeout: 10 * 60 * 1000 })
    return ok(`[xpm] reloaded ${label}`)
  } catch (err) {
    if (err instanceof StillWorking) return ok(`[xpm] stopped waiting after ${err.message.replace(/^waited /, '')}; the daemon is still working on it`)
    return failed(err.code || 'XPM_ERR_INTERNAL', err.message)
  } finally {
    client.close()
  }
}

function ok (message) {
  return { ok: true, message }
}

function failed (code, message) {
  return { ok: false, code, exitCode: CODES[code]?.exit ?? 1, message }
}

module.exports = { runAction, parseAction, parseTarget, ACTIONS }
