'use strict'

// What a restart reason or a stop cause means, as the journal records it: { kind, detail }.
// The reasons are the strings the model and the policies already use (docs/policies.md: 'manual',
// 'reload', 'watch: src/app.js', 'memory (93.4M > 80M)', 'cron', 'crash (exit code 1)'…) and
// the health checks' ('liveness: GET /healthz → 503', 'event loop blocked: p99 1.8 s …',
// 'heap (…)'); a stop cause is the user's command ('stop', 'delete', 'kill', 'scale', 'restart')
// or one of those reasons. Pure.
//   kind: command | watch | memory | cron | liveness | watchdog | heap | crash | not-ready |
//         rollback | cancelled | xpm | other
const GAVE_UP = /^(.+); (\d+ [^;]* \(max_restarts \d+\))$/s
const COMMANDS = { manual: 'restart', reload: 'reload', stop: 'stop', delete: 'delete', kill: 'kill', scale: 'scale', restart: 'restart' }

function classify (reason) {
  if (reason === null || reason === undefined || reason === '') return { kind: 'xpm', detail: null }
  const text = String(reason)
  if (Object.hasOwn(COMMANDS, text)) return { kind: 'command', detail: COMMANDS[text] }
  // a policy that gave up: 'memory (…); 17 memory restarts in a row, … (max_restarts 16)', the
  // tail as daemon/model/restart-policy.js words it; a "; " elsewhere is the cause's own (an exec
  // probe's command: 'liveness: exec "sleep 0.1; exit 3": exit code 3')
  let m = GAVE_UP.exec(text)
  if (m) return { ...classify(m[1]), gaveUp: m[2] }
  if ((m = /^watch: (.+)$/s.exec(text))) return { kind: 'watch', detail: m[1] }
  if (/^memory \(/.test(text)) return { kind: 'memory', detail: text }
  if (text === 'cron') return { kind: 'cron', detail: null }
  if ((m = /^liveness: (.+)$/s.exec(text))) return { kind: 'liveness', detail: m[1] }
  if (/^event loop blocked/.test(text)) return { kind: 'watchdog', detail: text.replace(/^event loop blocked: /, '') }
  if (/^heap \(/.test(text)) return { kind: 'heap', detail: text }
  if (/^crash /.test(text)) return { kind: 'crash', detail: text.replace(/^crash \((.*)\)$/, '$1') }
  if (text === 'not ready in time') return { kind: 'not-ready', detail: null }
  if ((m = /^rolled back \((.*)\)$/s.exec(text))) return { kind: 'rollback', detail: m[1] }
  if (text === 'cancelled') return { kind: 'cancelled', detail: null }
  return { kind: 'other', detail: text }
}

// Why a process ended, from its exit event (daemon/model/instance.js 'exit'):
//   by: 'xpm' (xpm stopped it: cause says why), 'command' (`xpm sendSignal`), 'outside' (a
//   signal xpm did not send: the OOM killer, a kill -9), 'itself' (it exited on its own).
function exitCause (e) {
  if (e.stopCause) return { by: 'xpm', ...classify(e.stopCause) }
  if (e.notReady) return { by: 'xpm', kind: 'not-ready', detail: e.notReady }
  if (e.signal && e.signalSent === e.signal) return { by: 'command', kind: 'command', detail: `sendSignal ${e.signal}` }
  if (e.signal) return { by: 'outside', kind: 'killed', detail: e.signal }
  return { by: 'itself', kind: e.next === 'stopped' ? 'finished' : 'crash', detail: `exit code ${e.code}` }
}

module.exports = { classify, exitCause }
