'use strict'

// `xpm why` and the "last event" line of `xpm show`: journal entries (daemon/journal) in words a
// person reads at 3 a.m. Pure.

const { renderTable } = require('./table')

// Pure: entries (newest first) → text. A table: when, which process, what happened (with the
// last lines a crashed process printed, below the sentence).
function renderWhy (entries, { target = '', now = Date.now(), ...options } = {}) {
  if (!entries.length) return `Nothing recorded for ${target} yet: no process of it has exited or restarted.\n`
  const rows = entries.map((e) => {
    const text = [sentence(e)]
    if (e.lines?.length) {
      text.push('  last lines:')
      for (const l of e.lines) text.push(`    ${l.stream === 'err' ? 'err' : 'out'} | ${l.line}`)
    }
    return [when(e.at, now), label(e), text.join('\n')]
  })
  return renderTable(rows, { head: ['when', 'process', 'what happened'], flex: 2, ...options })
}

function label (e) {
  return `${e.app}[${e.instance}]${e.pid ? ` pid ${e.pid}` : ''}`
}

function sentence (e) {
  if (e.event === 'restart') return `restarted: ${because(e.cause)}`
  if (e.event === 'reload-failed') {
    return `reload failed (${because(e.cause)}): the replacement ${e.reason}; the old process${e.oldPid ? ` (pid ${e.oldPid})` : ''} keeps serving`
  }
  if (e.event === 'exit') return exitSentence(e)
  if (e.event === 'dependency-failed') return `not started: it depends on ${e.dependency}, and ${e.reason}`
  if (e.event === 'warning') return `online with a warning: ${e.cause?.detail ?? ''}`
  return e.event
}

// What a signal xpm did not send most likely means: only SIGKILL can be the OOM killer; the
// others are the process's own failures (an app that closed fd 1 and 2 was aborted by a libuv
// assertion, and this used to say "the kernel's OOM killer?").
const OUTSIDE_SIGNALS = {
  SIGKILL: 'the kernel\'s OOM killer? someone\'s kill -9?',
  SIGABRT: 'it aborted itself: a failed assertion in Node or a native module, or abort()',
  SIGSEGV: 'it crashed in native code: a segmentation fault',
  SIGBUS: 'it crashed in native code: a bus error',
  SIGILL: 'it crashed in native code: an illegal instruction',
  SIGFPE: 'it crashed in native code: an arithmetic error'
}

function exitSentence (e) {
  const subject = e.role === 'spare' ? 'the replacement' : e.role === 'retiring' ? 'the old process' : ''
  const was = subject ? `${subject} was ` : '' // "the old process was stopped by xpm", "stopped by xpm"
  const it = subject ? `${subject} ` : '' // "the replacement crashed", "crashed"
  const how = e.signal ? `signal ${e.signal}` : `exit code ${e.code}`
  const ran = typeof e.ranMs === 'number' ? ` after running ${duration(e.ranMs)}` : ''
  const c = e.cause ?? {}
  let text
  if (c.by === 'xpm') {
    text = `${was}stopped by xpm: ${because(c)}${ran} (it ended with ${how}${e.signal ? ', sent by xpm' : ''})`
  } else if (c.by === 'command') {
    text = `${was}ended by ${e.signal} from your command \`xpm sendSignal\`${ran}`
  } else if (c.by === 'outside') {
    text = `${was}killed by signal ${e.signal}, not sent by xpm (${OUTSIDE_SIGNALS[e.signal] ?? 'someone\'s kill?'})${ran}`
  } else if (c.kind === 'finished') {
    text = `${it}exited on its own with ${how}${ran}`
  } else {
    text = `${it}crashed: ${how}${ran}`
  }
  if (e.next === 'restart') text += e.delay ? `; restarting in ${duration(e.delay)}` : '; restarting at once'
  else if (e.next === 'errored') text += `; now errored${e.reason ? `: ${e.reason}` : ''}`
  else if (e.next === 'stopped') text += `; left stopped${e.reason ? ` (${e.reason})` : ''}`
  return text
}

// A cause ({ kind, detail, gaveUp? }) in words.
function because (c = {}) {
  const d = c.detail
  const words = {
    command: () => `your command \`xpm ${d}\``,
    watch: () => `a watched file changed (${d})`,
    memory: () => `over its memory limit: ${d.replace(/^memory /, '')}`,
    cron: () => 'its cron_restart schedule',
    liveness: () => `its liveness probe failed: ${d}`,
    watchdog: () => `its event loop was blocked: ${d}`,
    heap: () => `its heap went over max_heap: ${d.replace(/^heap /, '')}`,
    crash: () => `it crashed (${d})`,
    'not-ready': () => `it was not ready in time${d ? ` (${d})` : ''}`,
    rollback: () => `a replacement that never became ready was rolled back (${d})`,
    cancelled: () => 'the command that started it was cancelled',
    xpm: () => 'xpm',
    other: () => d
  }[c.kind]
  const text = words ? words() : String(d ?? c.kind ?? 'unknown')
  return c.gaveUp ? `${text}; gave up: ${c.gaveUp}` : text
}

function duration (ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`
  const s = Math.floor(ms / 1000)
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`
}

// Local time; the date only when it is not today.
function when (at, now) {
  const d = new Date(at)
  const pad = (n) => String(n).padStart(2, '0')
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  const today = new Date(now).toDateString() === d.toDateString()
  return today ? time : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`
}

// One entry as the web page's journal shows it: { at, process, what, lines }.
function whyRow (e) {
  return { at: e.at, process: label(e), what: sentence(e), lines: e.lines || [] }
}

// One line for `xpm show`: the newest entry of a process.
function lastEventLine (e, { now = Date.now() } = {}) {
  if (!e) return '-'
  return `${sentence(e)} (${when(e.at, now)}${e.pid ? `, pid ${e.pid}` : ''})`
}

module.exports = { renderWhy, whyRow, lastEventLine, because, duration }
