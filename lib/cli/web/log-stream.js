'use strict'

// The live log of the process or app a page has selected: its own `logs` request (the last
// lines, then following) on its own connection, opened when the page asks and closed when it
// goes or selects another. Lines are sent in batches at most every BATCH_MS, at most
// MAX_LINES_PER_BATCH a batch and MAX_LINE_CHARS a line; what is over is counted and the page
// says how many lines it did not get (`xpm logs` has them all). A page that does not read (more
// than MAX_BUFFERED bytes waiting on its connection, the table's bound) is sent nothing: its
// lines are counted as `skipped` and the count goes with the next batch once it caught up, so
// what waits for a page never grows with what the app prints.

const BATCH_MS = 250
const MAX_LINES_PER_BATCH = 50 // 200 lines a second
const MAX_LINE_CHARS = 2000
const HISTORY_LINES = 100
const MAX_BUFFERED = 512 * 1024 // as the table's (hub.js)

function compact (l) {
  const line = String(l.line ?? '')
  return {
    id: l.id ?? null,
    app: l.app ?? null,
    instance: l.instance ?? null,
    stream: l.stream === 'err' ? 'err' : 'out',
    time: l.time ?? null,
    line: line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) + '…' : line
  }
}

// target: an app name or a process id (number). sink: { send(event, data), buffered(), onDrain(fn) }.
// Resolves with a stop function once the history is sent; throws what the daemon answered.
// onSkip(n): n lines were not sent because the page did not read.
async function streamLogs ({ connect, target, sink, timers = { setTimeout, clearTimeout }, onSkip = () => {} }) {
  const client = await connect()
  let queue = []
  let dropped = 0
  let skipped = 0
  let waiting = false // for the page to read what it was sent
  let timer = null
  let stopped = false
  const flush = () => {
    timer = null
    if (stopped || waiting || (!queue.length && !dropped && !skipped)) return
    if (sink.buffered && sink.buffered() > MAX_BUFFERED) {
      skip(queue.length + dropped)
      waiting = true
      sink.onDrain(() => {
        waiting = false
        flush()
      })
      return
    }
    sink.send('lines', skipped ? { lines: queue, dropped, skipped } : { lines: queue, dropped })
    queue = []
    dropped = 0
    skipped = 0
  }
  const skip = (n) => {
    skipped += n
    onSkip(n)
    queue = []
    dropped = 0
  }
  client.on('event', ({ event, data }) => {
    if (event === 'dropped') dropped += Number(data?.count) || 0
    if (event !== 'log' || stopped) return
    if (waiting) skip(1)
    else if (queue.length >= MAX_LINES_PER_BATCH) dropped++
    else queue.push(compact(data || {}))
    if (!timer && !waiting) timer = timers.setTimeout(flush, BATCH_MS)
  })
  client.on('close', () => {
    if (stopped) return
    sink.send('gone', { message: 'the xpm daemon went away' })
    sink.end()
  })
  const stop = () => {
    stopped = true
    timers.clearTimeout(timer)
    client.close()
  }
  try {
    const reply = await client.request('logs', { target, lines: HISTORY_LINES, follow: true })
    sink.send('lines', { lines: (reply?.lines || []).map(compact), dropped: 0, history: true })
  } catch (err) {
    stop()
    throw err
  }
  return stop
}

module.exports = { streamLogs, compact, MAX_LINES_PER_BATCH, BATCH_MS, MAX_BUFFERED }
