'use strict'

const { snapshot, complete, sinkMatches } = require('./history')
const { RECORD_OVERHEAD } = require('./ring')

const MAX_PENDING = 10000 // live lines kept back while a tail reads history,
const MAX_PENDING_BYTES = 4 * 1024 * 1024 // and their bytes (each line's text plus its record)

// Reading back a LogSink's lines (daemon/logs/index.js): the last n lines from the rings and the
// files, and the last n then live lines with no gap and no duplicate.

// Takes the snapshot of the rings now and returns the (async) completion from disk.
function readHistory (sink, filter, n, perFile) {
  if (!perFile) {
    const snap = snapshot(sink.files.values(), filter, n)
    return () => complete(snap, filter, n, sink.logger)
  }
  const snaps = []
  for (const file of sink.files.values()) {
    if (file.ring && sinkMatches(file, filter)) snaps.push({ file, snap: snapshot([file], filter, n) })
  }
  return async () => {
    const lines = []
    const files = []
    for (const { file, snap } of snaps) {
      const got = await complete(snap, filter, n, sink.logger)
      files.push({ file: file.file, streams: [...file.streams], lines: got.length })
      for (const line of got) lines.push(line)
    }
    return { lines, files }
  }
}

// The last n lines, then live lines with no gap and no duplicate. Live lines that arrive while
// history is read are delivered on the next turn after the promise resolves, so a caller that
// sends the history in its await continuation sends it first.
async function tailAndSubscribe (sink, filter, n, onLine, onSubscribed, { perFile = false } = {}) {
  filter = filter || {}
  let live = false
  let cancelled = false
  let skipped = 0
  const pending = []
  let pendingBytes = 0
  const unsubscribeRaw = sink.subscribe(filter, (obj) => {
    if (live) onLine(obj)
    else if (pending.length < MAX_PENDING && pendingBytes < MAX_PENDING_BYTES) {
      pending.push(obj)
      pendingBytes += obj.line.length + RECORD_OVERHEAD
    } else skipped++
  })
  const unsubscribe = () => {
    cancelled = true
    unsubscribeRaw()
  }
  onSubscribed?.(unsubscribe)
  const read = sink.history(filter, n, perFile)
  let lines
  try {
    lines = await read()
  } catch (err) {
    unsubscribe()
    throw err
  }
  setImmediate(() => {
    if (cancelled) return
    live = true
    if (skipped) pending.push({ app: null, id: null, instance: null, pid: null, stream: 'out', time: sink.now(), line: `[xpm] ${skipped} lines skipped`, skipped })
    try {
      for (const obj of pending) onLine(obj)
    } catch (err) {
      sink.logger?.warn({ event: 'log-subscriber-error', err }, 'a log subscriber threw')
    }
  })
  return lines
}

module.exports = { readHistory, tailAndSubscribe }
