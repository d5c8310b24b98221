'use strict'

// The last lines a process that failed to start wrote on stderr, so the CLI can show why (a
// missing module, a port in use) without a trip to `xpm logs`. Waits briefly for the pipe to
// close so the lines are all in; prefers the thrown error's own line ("Error: Cannot find
// module 'x'") over Node's trailer.
// pid: the lines of that process of the slot only (a reload's failed replacement).
async function lastErrorLines (logSink, inst, count = 5, { pid = null } = {}) {
  if (!logSink) return []
  const stderr = pid ? null : inst.handle?.stderr
  if (stderr && !stderr.closed) {
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 300)
      stderr.once('close', () => { clearTimeout(timer); resolve() })
    })
  }
  const lines = (await logSink.tail({ ids: new Set([inst.id]), streams: new Set(['err']) }, 40).catch(() => []))
    .filter((l) => !pid || l.pid === pid).map((l) => l.line)
  const thrown = lines.findIndex((l) => /^\s*(\w*Error|Uncaught)\b/.test(l))
  return thrown === -1 ? lines.slice(-count) : lines.slice(thrown, thrown + count)
}

module.exports = { lastErrorLines }
