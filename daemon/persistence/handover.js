'use strict'

const { formatDuration } = require('../../lib/shared/quantity')

// update.json is a hand-over between two daemons that follow each other at once: during
// `xpm update` the old daemon writes it, stops its apps (each within its kill_timeout) and exits,
// and the CLI starts the new one as soon as the old pid is gone. A file left by an interrupted
// update must not bring back, at some later unrelated start, apps deleted since. So the new
// daemon honours it only while it is fresh:
//   - written less than HANDOVER_MARGIN_MS plus the longest kill_timeout of its apps ago (at
//     most MAX_HANDOVER_MS: the CLI waits no longer for the old daemon to go);
//   - the daemon it names is gone, and is the one that last kept state.json here;
//   - nothing was changed after it was written: the apps of state.json (the desired state the
//     daemon kept after every change, until its shutdown) are those of update.json — same apps,
//     same specs, each instance wanted up or down alike. `prepareUpdate`, then `delete old-app`,
//     `start new-app`, `kill`: the next daemon must not bring old-app back.
// And any shutdown that is not the update's own (`xpm kill`, SIGTERM) removes the file the
// daemon prepared (persistence/index.js, `kill` with `handover: true` is the update's).
// An update interrupted after the file was written (the CLI killed, the daemon serving on) is
// caught by these and by the age: the next start comes after that daemon stopped.
// Pure: values in, a verdict out.
const HANDOVER_MARGIN_MS = 60000
const MAX_HANDOVER_MS = 180000

function handoverWindow (apps) {
  const longestStop = Math.max(0, ...apps.map((a) => Number(a.spec?.killTimeout) || 0))
  return Math.min(HANDOVER_MARGIN_MS + longestStop, MAX_HANDOVER_MS)
}

// → { fresh: true } | { fresh: false, why }
function checkHandover ({ update, previous = null, now, isAlive = () => false }) {
  const window = handoverWindow(update.apps)
  const written = Date.parse(update.savedAt ?? '')
  if (!Number.isFinite(written)) return { fresh: false, why: 'it carries no time of writing' }
  const age = now - written
  if (age > window) return { fresh: false, why: `it was written ${formatDuration(age)} ago (${update.savedAt}); a hand-over is taken within ${formatDuration(window)}` }
  if (age < -window) return { fresh: false, why: `it is dated in the future (${update.savedAt})` }
  const pid = update.daemon?.pid
  if (Number.isInteger(pid) && isAlive(pid)) return { fresh: false, why: `the daemon that wrote it (pid ${pid}) is still running` }
  const last = previous?.daemon?.pid
  if (Number.isInteger(pid) && Number.isInteger(last) && last !== pid) {
    return { fresh: false, why: `it was written by daemon pid ${pid}, but the last daemon here was pid ${last}` }
  }
  const changed = previous?.apps ? changedApps(update.apps, previous.apps) : null
  if (changed) return { fresh: false, why: `the apps changed after it was written (${changed})` }
  return { fresh: true }
}

// What differs between the apps of a hand-over and the desired state kept later; null: nothing.
function changedApps (handedOver, kept) {
  // a one-shot job that ended meanwhile reads as stopped: that is no one's change of mind
  const key = (app) => JSON.stringify([app.spec, (app.instances || []).map((i) => [i.id, i.index, app.spec?.autorestart === false ? null : i.desired])])
  const a = new Map(handedOver.map((app) => [app.spec?.name, app]))
  const b = new Map(kept.map((app) => [app.spec?.name, app]))
  const gone = [...a.keys()].filter((n) => !b.has(n))
  const added = [...b.keys()].filter((n) => !a.has(n))
  const differ = [...a.keys()].filter((n) => b.has(n) && key(a.get(n)) !== key(b.get(n)))
  const parts = [
    gone.length && `${gone.join(', ')} deleted since`,
    added.length && `${added.join(', ')} added since`,
    differ.length && `${differ.join(', ')} changed since`
  ].filter(Boolean)
  return parts.length ? parts.join('; ') : null
}

module.exports = { checkHandover, handoverWindow, changedApps, HANDOVER_MARGIN_MS, MAX_HANDOVER_MS }
