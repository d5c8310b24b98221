'use strict'

// Which of a process's last output lines the journal keeps (`xpm why`): the newest `max`, unless
// they are only stack frames of an error whose own line ("Error: connect ECONNREFUSED", "TypeError:
// x is not a function") came earlier: then the error's first line and the lines after it, within
// the same bound. A long stack must not push out the line that says what happened. Pure.
const ERROR_LINE = /^\s*(?:Uncaught\s+)?(?:[\w.$]*(?:Error|Exception)\b|Caused by:|\[cause\])/
const FRAME = /^\s+at\s|^\s+\.\.\. \d+ more|^\s*\{$|^\s*\}$|^\s+\w+: /

function whatHappened (lines, max, text = (l) => l.line) {
  if (lines.length <= max) return lines
  const start = lines.length - max
  if (lines.slice(start).some((l) => ERROR_LINE.test(text(l)))) return lines.slice(start)
  let at = -1
  for (let i = start - 1; i >= 0; i--) {
    if (ERROR_LINE.test(text(lines[i]))) { at = i; break }
  }
  if (at === -1) return lines.slice(start)
  // back to the first error line of the same block (an error and its causes, frames between)
  for (let i = at - 1; i >= 0; i--) {
    const line = text(lines[i])
    if (ERROR_LINE.test(line)) at = i
    else if (!FRAME.test(line)) break
  }
  return lines.slice(at, at + max)
}

module.exports = { whatHappened, ERROR_LINE }
