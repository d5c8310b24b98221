'use strict'

const { EventEmitter, once } = require('node:events')
const { FileSink } = require('./file-sink')
const { LineSplitter } = require('./line-splitter')
const { createEntryFormatter } = require('./format-entry')
const { logPaths, normalizeRotate } = require('./paths')
const { readHistory, tailAndSubscribe } = require('./tail')
const { recentLines } = require('./history')
const { Subscribers } = require('./subscribers')

const PARTIAL_LINE_MS = 500

const END_DEADLINE_MS = 2000 // how long close waits for workers' pipes to deliver their last lines
const WRITE_PIECE = 16 * 1024

// The daemon's log sink: owns every worker's stdout and stderr, writes whole lines to rotating
// files, keeps the last lines of each file in memory and fans lines out to subscribers.
class LogSink extends EventEmitter {
  constructor ({ logsDir, logger = null, now = Date.now, highWaterMark, maxLineBytes = 64 * 1024, createStream, toConsole = null } = {}) {
    super()
    this.logsDir = logsDir
    this.console = toConsole // { stdout, stderr }: container mode, lines to the console (see console-sink.js)
    this.logger = logger
    this.now = now
    this.fileOptions = { highWaterMark, createStream, logger }
    this.maxLineBytes = maxLineBytes
    this.files = new Map() // path → FileSink
    this.apps = new Map() // name → { logsKey, format, routes: Map(instance → { out, err }) }
    this.sources = new Set()
    this.routeOfPipe = new WeakMap() // a process's stdout/stderr → the route it was attached to
    this.subscribers = new Subscribers({ logger })
    this.seq = 0
    this.closed = false
  }

  paths (spec, instance = 0) {
    return logPaths(spec, this.logsDir, instance)
  }

  // Call once per OS process (every start, restart and reload replacement) with its pipes.
  attach ({ spec, proc, stdout, stderr }) {
    if (this.closed) {
      stdout?.resume()
      stderr?.resume()
      return
    }
    const app = this.app(spec)
    const route = this.route(app, spec, proc.instance)
    for (const sink of [...route.out, ...route.err]) sink.ids.add(proc.id)
    for (const pipe of [stdout, stderr]) if (pipe) this.routeOfPipe.set(pipe, route)
    if (stdout) this.pipe(app, proc, 'out', stdout, route.out)
    if (stderr) this.pipe(app, proc, 'err', stderr, route.err)
  }

  app (spec) {
    const logsKey = JSON.stringify(spec.logs || {})
    let app = this.apps.get(spec.name)
    if (!app || app.logsKey !== logsKey) {
      app = { name: spec.name, logsKey, format: createEntryFormatter(spec.logs), routes: new Map() }
      this.apps.set(spec.name, app)
    }
    return app
  }

  route (app, spec, instance) {
    let route = app.routes.get(instance)
    if (route) return route
    const paths = this.paths(spec, instance)
    const rotate = normalizeRotate(spec.logs?.rotate)
    if (this.console) {
      route = require('./console-sink').consoleRoute(this, { app, spec, instance, paths, rotate })
      app.routes.set(instance, route)
      return route
    }
    const out = this.file(paths.out, rotate, app, 'out', true)
    const err = this.file(paths.err, rotate, app, 'err', true)
    const combined = paths.combined ? this.file(paths.combined, rotate, app, null, false) : null
    // A path named twice (out = err, or -l equal to -o) is written once.
    route = { out: unique([out, combined]), err: unique([err, combined]) }
    app.routes.set(instance, route)
    return route
  }

  file (file, rotate, app, stream, ring) {
    let sink = this.files.get(file)
    if (!sink) {
      sink = new FileSink({ file, rotate, ring, ...this.fileOptions })
      this.files.set(file, sink)
    } else {
      sink.setRotate(rotate).catch((err) => this.logger?.error({ event: 'log-error', file, err }, 'changing rotation failed'))
    }
    if (ring) sink.enableRing()
    if (stream) sink.streams.add(stream)
    sink.apps.add(app.name)
    sink.json = Boolean(app.format.json)
    return sink
  }

  pipe (app, proc, stream, readable, sinks) {
    const src = { app: proc.name, readable, blocked: new Set(), splitter: new LineSplitter({ maxLineBytes: this.maxLineBytes }) }
    src.resume = (sink) => {
      src.blocked.delete(sink)
      if (!src.blocked.size && !src.done) readable.resume()
    }
    const consume = (lines) => {
      if (lines.length) this.consume(app.format, proc, stream, lines, sinks, src)
    }
    // text without a newline ("errwrite" written every second, a prompt) is a line of its own
    // once the stream has been quiet for PARTIAL_LINE_MS, as PM2 writes what arrives
    const flushPartial = () => {
      // held back by a slow file (back-pressure) is not quiet: the rest of the line may be in the pipe
      if (src.blocked.size) return src.partialTimer.refresh()
      src.partialTimer = null
      const rest = src.splitter.end()
      if (rest !== null && !src.done) consume([rest])
    }
    const done = () => {
      if (src.done) return
      if (src.partialTimer) clearTimeout(src.partialTimer)
      const rest = src.splitter.end()
      if (rest !== null) consume([rest])
      src.done = true
      for (const sink of src.blocked) sink.off('drain', src.onDrain)
      this.sources.delete(src)
      this.emit('source-end', src)
    }
    src.onDrain = function () { src.resume(this) }
    this.sources.add(src)
    readable.on('data', (chunk) => {
      consume(src.splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk))
      if (!src.splitter.bufferedBytes) {
        if (src.partialTimer) clearTimeout(src.partialTimer)
        src.partialTimer = null
      } else if (src.partialTimer) src.partialTimer.refresh()
      else src.partialTimer = setTimeout(flushPartial, PARTIAL_LINE_MS).unref()
    })
    readable.once('end', done)
    readable.once('close', done)
    readable.on('error', (err) => this.logger?.debug({ event: 'log-pipe-error', app: proc.name, id: proc.id, err }, 'worker pipe error'))
  }

  consume (format, proc, stream, messages, sinks, src) {
    const time = this.now()
    let objs = []
    let sizes = []
    let text = ''
    let bytes = 0
    for (const message of messages) {
      const obj = { app: proc.name, id: proc.id, instance: proc.instance, pid: proc.pid, stream, time, line: format.line(message, time) }
      const fileLine = format.file(obj, message) + '\n'
      const size = Buffer.byteLength(fileLine)
      objs.push(obj)
      sizes.push(size)
      text += fileLine
      bytes += size
      // Pieces bound how far a file can pass its rotation size (timestamps make a pipe read grow).
      if (bytes >= WRITE_PIECE) {
        this.writePiece(objs, sizes, text, bytes, sinks, src)
        objs = []
        sizes = []
        text = ''
        bytes = 0
      }
    }
    if (objs.length) this.writePiece(objs, sizes, text, bytes, sinks, src)
    if (src.blocked.size) src.readable.pause()
  }

  writePiece (objs, sizes, text, bytes, sinks, src) {
    for (const sink of sinks) {
      if (sink.ring) {
        let pos = sink.writtenBytes
        for (let i = 0; i < objs.length; i++) {
          sink.ring.push({ seq: this.seq + i + 1, pos, size: sizes[i], obj: objs[i] })
          pos += sizes[i]
        }
      }
      if (!sink.write(text, bytes, objs.length) && !src.blocked.has(sink)) {
        src.blocked.add(sink)
        sink.once('drain', src.onDrain)
      }
    }
    this.seq += objs.length
    if (this.subscribers.size) for (const obj of objs) this.subscribers.publish(obj)
  }

  subscribe (filter, onLine) {
    return this.subscribers.add(filter, onLine)
  }

  async tail (filter, n) {
    return this.history(filter || {}, n, false)()
  }

  // One process's last n lines, from the rings of the files it wrote to (history.js recentLines).
  recent (proc, n) {
    return recentLines(this, proc, n)
  }

  // The last n lines of each file (PM2's `logs --lines`): { lines, files: [{ file, streams, lines }] }.
  async tailPerFile (filter, n) {
    return this.history(filter || {}, n, true)()
  }

  // Takes the snapshot of the rings now and returns the (async) completion from disk (tail.js).
  history (filter, n, perFile) {
    return readHistory(this, filter, n, perFile)
  }

  // The last n lines, then live lines with no gap and no duplicate (tail.js).
  tailAndSubscribe (filter, n, onLine, onSubscribed, options) {
    return tailAndSubscribe(this, filter, n, onLine, onSubscribed, options)
  }

  // Empties the files of one app (or all) while its workers keep writing; later lines land.
  async flush (name = null) {
    const sinks = [...this.files.values()].filter((s) => name === null || s.apps.has(name))
    await Promise.all(sinks.map((s) => s.recreate({ truncate: true })))
  }

  // Reopens every file at its path, for an external logrotate that moved them (SIGUSR2).
  async reopen () {
    await Promise.all([...this.files.values()].map((s) => s.recreate()))
  }

  async closeApp (name) {
    await this.waitSources((src) => src.app === name)
    this.apps.delete(name)
    const closing = []
    for (const [file, sink] of this.files) {
      if (!sink.apps.delete(name) || sink.apps.size) continue
      this.files.delete(file)
      closing.push(sink.close())
    }
    await Promise.all(closing)
  }

  async close () {
    if (this.closed) return
    await this.waitSources(() => true)
    this.closed = true
    this.subscribers.clear()
    await Promise.all([...this.files.values()].map((s) => s.close()))
  }

  // Lets exited workers' pipes deliver their last lines, up to a deadline.
  async waitSources (pick) {
    if (![...this.sources].some(pick)) return
    // A ref'd timer: AbortSignal.timeout() would let a quiet process exit mid-wait.
    const ac = new AbortController()
    const timer = setTimeout(() => ac.abort(), END_DEADLINE_MS)
    try {
      while ([...this.sources].some(pick)) await once(this, 'source-end', { signal: ac.signal })
    } catch {
    } finally {
      clearTimeout(timer)
    }
  }

  stats () {
    let bufferedBytes = 0
    let droppedLines = 0
    let rotations = 0
    for (const sink of this.files.values()) {
      bufferedBytes += sink.bufferedBytes
      droppedLines += sink.droppedLines
      rotations += sink.rotations
    }
    let pausedSources = 0
    for (const src of this.sources) {
      bufferedBytes += src.splitter.bufferedBytes
      if (src.blocked.size) pausedSources++
    }
    return {
      bufferedBytes,
      droppedLines,
      rotations,
      lines: this.seq,
      files: this.files.size,
      sources: this.sources.size,
      pausedSources,
      subscribers: this.subscribers.size,
      subscriberErrors: this.subscribers.errors
    }
  }
}

function unique (sinks) {
  return [...new Set(sinks.filter(Boolean))]
}

function createLogSink (options) {
  return new LogSink(options)
}

module.exports = { createLogSink, LogSink }
