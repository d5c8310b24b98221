'use strict'

const { readLastLinesAcross } = require('./read-last-lines')
const { parseJsonLine } = require('./format-entry')

const DISK_DEADLINE_MS = 5000

function matches (filter, obj) {
  return (!filter.names || filter.names.has(obj.app)) &&
    (!filter.ids || filter.ids.has(obj.id)) &&
    (!filter.streams || filter.streams.has(obj.stream))
}

function intersects (set, wanted) {
  if (!wanted) return true
  const [small, large] = wanted.size < set.size ? [wanted, set] : [set, wanted]
  for (const v of small) if (large.has(v)) return true
  return false
}

// Whether a file can hold lines the filter wants.
function sinkMatches (sink, filter) {
  return intersects(sink.apps, filter.names) && intersects(sink.streams, filter.streams) && intersects(sink.ids, filter.ids)
}

// Synchronous part of a tail: the matching lines of the rings, and, per file, the logical
// position where the ring starts (everything before it can only come from disk).
function snapshot (sinks, filter, n) {
  const plans = []
  let lines = []
  for (const sink of sinks) {
    if (!sink.ring) continue
    if (!sinkMatches(sink, filter)) continue
    const records = sink.ring.toArray()
    for (const r of records) if (matches(filter, r.obj)) lines.push(r)
    plans.push({ sink, before: records.length ? records[0].pos : sink.writtenBytes })
  }
  lines.sort((a, b) => a.seq - b.seq)
  if (lines.length > n) lines = lines.slice(lines.length - n)
  return { lines: lines.map((r) => r.obj), plans: lines.length >= n ? [] : plans }
}

// One instance's last n lines held in memory (the rings of its own files; no file is read, no
// other app looked at): for the journal at each exit. Lines read from a file carry no pid
// (unless in JSON format), so the journal could not use them anyway. pipes: the process's stdout
// and stderr; their route is the one it wrote to even when a replacement with other log settings
// has since taken its instance (a reload that changed out_file). Else by name and instance.
const OUT_AND_ERR = new Set(['out', 'err'])
function recentLines (logSink, { name, instance, id, pipes = [] }, n) {
  const route = pipes.reduce((found, pipe) => found ?? (pipe ? logSink.routeOfPipe.get(pipe) : undefined), undefined) ??
    logSink.apps.get(name)?.routes.get(instance)
  if (!route) return []
  return snapshot(new Set([...route.out, ...route.err]), { ids: new Set([id]), streams: OUT_AND_ERR }, n).lines
}

// Adds lines from disk that are older than the rings, when the rings hold fewer than n. Each file
// is read while its new lines are held back, so the bytes after `before` (already in the ring,
// or arriving live) are skipped exactly: on disk are writtenBytes minus what is held.
async function complete (snap, filter, n, logger) {
  const need = n - snap.lines.length
  if (need <= 0 || !snap.plans.length) return snap.lines
  const signal = AbortSignal.timeout(DISK_DEADLINE_MS)
  const older = []
  for (const plan of snap.plans) {
    try {
      older.push(...(await readSink(plan, filter, need, signal)))
    } catch (err) {
      logger?.warn({ event: 'log-history-error', file: plan.sink.file, err }, `reading history of ${plan.sink.file} failed`)
    }
  }
  const take = older.length > need ? older.slice(older.length - need) : older
  return take.concat(snap.lines)
}

async function readSink ({ sink, before }, filter, need, signal) {
  await sink.quiesce(signal).catch((err) => {
    sink.release()
    throw err
  })
  let texts
  try {
    texts = await readLastLinesAcross(sink.historyFiles(), need, { skip: Math.max(0, sink.writtenBytes - sink.heldBytes - before) })
  } finally {
    sink.release()
  }
  const fallback = {
    app: [...sink.apps][0] ?? null,
    id: null,
    instance: null,
    pid: null,
    stream: sink.streams.has('out') ? 'out' : 'err',
    time: null
  }
  if (!sink.json) return texts.map((line) => ({ ...fallback, line }))
  // JSON files carry the id: filter as precisely as the ring does.
  return texts.map((t) => parseJsonLine(t, fallback)).filter((o) => o.id === null || !filter.ids || filter.ids.has(o.id))
}

module.exports = { snapshot, complete, matches, sinkMatches, recentLines }
