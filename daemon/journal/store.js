'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { openAppendNoFollow, readPrivateFile } = require('../../lib/shared/safe-fs')
const { writeFileAtomic } = require('../../lib/shared/state/atomic-write')

// The restart journal on disk: one file of JSON lines per app, XPM_HOME/journal/<app>.jsonl,
// kept across daemon restarts (and `kill -9` of the daemon: each entry is one append of a whole
// line; a torn last line is skipped when read). Bounded per app: once a file holds twice `max`
// entries it is rewritten with the newest `max` (atomic-write.js: a temporary file renamed over
// it). Only async fs, one operation per app at a time (appends keep their order); never through
// a link (safe-fs.js: a file that is a link, another user's, or has a second hard link is
// refused, and the entry is dropped with a line in the daemon log). The file an append opened
// stays open for the next ones (a crash loop appends every second or two): at most OPEN_MAX
// files, the least recently appended to closed first, each closed IDLE_MS after its last append,
// before its file is rewritten and when the app's journal is removed; all on the app's chain.
const MAX_ENTRIES = 100
const OPEN_MAX = 16
const IDLE_MS = 10000

function createJournalStore ({ dir, max = MAX_ENTRIES, fsp = fs.promises, logger = null, openMax = OPEN_MAX, idleMs = IDLE_MS }) {
  const queues = new Map() // app → tail of its operation chain
  const counts = new Map() // app → lines in its file, once known
  const kept = new Map() // app → { handle, timer }: open files, least recently appended to first

  const fileOf = (app) => path.join(dir, `${app}.jsonl`)

  // Runs fn after the app's earlier operations; the chain is forgotten once idle.
  function serial (app, fn) {
    const run = (queues.get(app) ?? Promise.resolve()).then(fn)
    const tail = run.catch(() => {})
    queues.set(app, tail)
    tail.then(() => { if (queues.get(app) === tail) queues.delete(app) })
    return run
  }

  // The app's open file (on its chain), opened (and checked: safe-fs.js) when it is not.
  async function handleOf (app) {
    const open = kept.get(app)
    if (open) {
      kept.delete(app)
      kept.set(app, open)
      open.timer.refresh()
      return open.handle
    }
    const { handle } = await openAppendNoFollow(fileOf(app), { mode: 0o600, fsp })
    const timer = setTimeout(() => serial(app, () => release(app)).catch(() => {}), idleMs)
    timer.unref()
    kept.set(app, { handle, timer })
    if (kept.size > openMax) {
      const oldest = kept.keys().next().value
      serial(oldest, () => release(oldest)).catch(() => {})
    }
    return handle
  }

  // Closes the app's open file, if any (on its chain).
  async function release (app) {
    const open = kept.get(app)
    if (!open) return
    kept.delete(app)
    clearTimeout(open.timer)
    await open.handle.close().catch(() => {})
  }

  async function readLines (app) {
    let text
    try {
      text = await readPrivateFile(fileOf(app), { fsp })
    } catch (err) {
      if (err.code === 'ENOENT') return []
      throw err
    }
    const out = []
    for (const line of text.split('\n')) {
      if (!line) continue
      try {
        const entry = JSON.parse(line)
        if (entry && typeof entry === 'object') out.push(entry)
      } catch {} // a line torn by a crash mid-write
    }
    return out
  }

  function append (app, entry) {
    return serial(app, async () => {
      if (!counts.has(app)) counts.set(app, (await readLines(app).catch(() => [])).length)
      const handle = await handleOf(app)
      await handle.write(JSON.stringify(entry) + '\n').catch(async (err) => {
        await release(app) // the next append opens (and checks) the file again
        throw err
      })
      const count = counts.get(app) + 1
      counts.set(app, count)
      if (count >= 2 * max) {
        await release(app)
        const newest = (await readLines(app)).slice(-max)
        await writeFileAtomic(fileOf(app), newest.map((e) => JSON.stringify(e) + '\n').join(''), { fs: fsp })
        counts.set(app, newest.length)
      }
    }).catch((err) => {
      counts.delete(app)
      logger?.warn({ event: 'journal', app, err: err.message }, `journal of ${app}: an entry was not written: ${err.message}`)
    })
  }

  // The newest `max` entries of the app, oldest first; [] when it has none.
  function read (app) {
    return serial(app, async () => (await readLines(app)).slice(-max)).catch((err) => {
      logger?.warn({ event: 'journal', app, err: err.message }, `journal of ${app} could not be read: ${err.message}`)
      return []
    })
  }

  function remove (app) {
    return serial(app, async () => {
      counts.delete(app)
      await release(app)
      await fsp.rm(fileOf(app), { force: true })
    }).catch(() => {})
  }

  // Resolves once every operation queued so far has ended (tests, shutdown).
  function idle () {
    return Promise.all([...queues.values()])
  }

  return { append, read, remove, idle, file: fileOf, open: () => kept.size }
}

module.exports = { createJournalStore, MAX_ENTRIES }
