'use strict'

// The live log of the process or app a page has selected: its own `logs` request (the last
// lines, then following) on its own connection, opened when the page asks and closed when it
// goes or selects another. Lines are sent in batches at most every BATCH_MS, at most
// MAX_LINES_PER_BATCH a batch and MAX_LINE_CHARS a line; what is over is counted and the page
// says how many lines it did not get (`xpm logs` has them all).

const BATCH_MS = 250
const MAX_LINES_PER_BATCH = 50 // 200 lines a second
const MAX_LINE_CHARS = 2000
const HISTORY_LINES = 100

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

// target: an app name or a process id (number). sink: { send(event, data), buffered() }.
// Resolves with a stop function once the history is sent; throws what the daemon answered.
async function streamLogs ({ connect, target, sink, timers = { setTimeout, clearTimeout } }) {
  const client = await connect()
  let queue = []
  let dropped = 0
  let timer = null
  let stopped = false
  const flush = () => {
    timer = null
    if (stopped || (!queue.length && !dropped)) return
    sink.send('lines', { lines: queue, dropped })
    queue = []
    dropped = 0
  }
  client.on('event', ({ event, data }) => {
    if (event === 'dropped') dropped += Number(data?.count) || 0
    if (event !== 'log' || stopped) return
    if (queue.length >= MAX_LINES_PER_BATCH) dropped++
    else queue.push(compact(data || {}))
    if (!timer) timer = timers.setTimeout(flush, BATCH_MS)
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

module.exports = { streamLogs, compact, MAX_LINES_PER_BATCH, BATCH_MS }
