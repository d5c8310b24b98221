'use strict'

const { EventEmitter } = require('node:events')

// Container mode: an app's lines go to the runtime's own stdout or stderr, each prefixed with
// `id|name| ` as in `xpm logs` (JSON lines stay bare: they name their app). Same interface as
// FileSink where LogSink writes; 'drain' comes from the terminal or pipe we write to.
class ConsoleSink extends EventEmitter {
  constructor ({ stream, prefix = '' }) {
    super()
    this.stream = stream
    this.prefix = prefix
    this.ring = null
    this.json = false
    this.ids = new Set()
    this.apps = new Set()
    this.streams = new Set()
    this.writtenBytes = 0
    this.waiting = false
  }

  write (text) {
    // text is whole lines, each ending with \n
    const out = this.prefix && !this.json ? this.prefix + text.slice(0, -1).replaceAll('\n', '\n' + this.prefix) + '\n' : text
    this.writtenBytes += Buffer.byteLength(text)
    if (this.stream.write(out)) return true
    if (!this.waiting) {
      this.waiting = true
      this.stream.once('drain', () => {
        this.waiting = false
        this.emit('drain')
      })
    }
    return false
  }

  async close () {}
}

// The route of one app instance in container mode: the console, plus only the files the app
// names itself (out_file, error_file, log_file); the default files are not written.
// style (xpm-runtime's flags): 'prefixed' `name[instance]| ` (default), 'raw' the line alone,
// 'format' PM2's key=value (`app=api id=0 type=out message=…`), 'json' (lines are JSON already).
function consoleRoute (logSink, { app, spec, instance, paths, rotate }) {
  const style = logSink.console.style ?? 'prefixed'
  const prefixOf = (kind) => style === 'raw' ? '' : style === 'format' ? `app=${spec.name} id=${instance} type=${kind} message=` : `${spec.name}[${instance}]| `
  const sink = (stream, kind) => {
    const s = new ConsoleSink({ stream, prefix: prefixOf(kind) })
    s.json = Boolean(app.format.json)
    s.apps.add(app.name)
    s.streams.add(kind)
    return s
  }
  const logs = spec.logs || {}
  const named = (explicit, file, kind) => (explicit ? [logSink.file(file, rotate, app, kind, true)] : [])
  const combined = logs.logFile ? [logSink.file(paths.combined, rotate, app, null, false)] : []
  return {
    out: [...new Set([sink(logSink.console.stdout, 'out'), ...named(logs.outFile, paths.out, 'out'), ...combined])],
    err: [...new Set([sink(logSink.console.stderr, 'err'), ...named(logs.errorFile, paths.err, 'err'), ...combined])]
  }
}

module.exports = { ConsoleSink, consoleRoute }
