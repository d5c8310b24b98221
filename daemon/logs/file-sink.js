'use strict'

const { EventEmitter, once } = require('node:events')
const fs = require('node:fs')
const path = require('node:path')
const { finished } = require('node:stream/promises')
const { openLogFile } = require('./rotating-file')
const { Ring } = require('./ring')
const { rfsOptions, historyFiles, DEV_NULL } = require('./paths')

// One log file (and its rotated predecessors), shared by every instance writing to it. Whole
// lines only, so lines from different instances never interleave and rotation never cuts one.
// Emits 'drain' when the bytes not yet on disk fall back under half the high-water mark.
class FileSink extends EventEmitter {
  constructor ({ file, rotate, ring = false, highWaterMark = 256 * 1024, createStream = openLogFile, logger }) {
    super()
    this.setMaxListeners(0) // every paused instance waits for 'drain'
    this.file = file
    this.rotate = rotate
    this.hwm = highWaterMark
    this.createStream = createStream
    this.logger = logger
    this.ring = ring ? new Ring() : null
    this.apps = new Set()
    this.ids = new Set()
    this.streams = new Set()
    this.json = false
    this.inflight = 0 // bytes handed to the file stream, not yet written
    this.held = null // lines kept back while history is read or files are swapped
    this.heldBytes = 0
    this.holds = 0
    this.needDrain = false
    this.writtenBytes = 0 // logical position since this sink opened; survives rotation
    this.droppedLines = 0
    this.rotations = 0
    this.closed = false
    this.stream = null
    this.opening = this.open() // never rejects
  }

  enableRing () {
    if (!this.ring) this.ring = new Ring()
  }

  // Lines are held while the folder is checked and the file opened (createStream may be async);
  // a refused or failed file leaves `stream` null: the app runs on, its lines still reach
  // subscribers and the ring (`xpm logs`), only this file is not written until reloadLogs.
  async open () {
    if (this.file === DEV_NULL) return
    this.hold()
    try {
      let stream
      try {
        stream = await this.createStream(this.file, rfsOptions(this.rotate))
      } catch (err) {
        this.logger?.error({ event: 'log-error', file: this.file, err }, err.code === 'XPM_ERR_FILE_UNSAFE' ? err.message : `cannot open ${this.file} (${err.code || err.message}); its lines are not written to it until reloadLogs`)
        return
      }
      this.wire(stream)
      this.stream = stream
    } finally {
      this.release()
    }
  }

  wire (stream) {
    stream.on('error', (err) => {
      // XPM_ERR_FILE_UNSAFE: the folder refused at a rotation (see folder-trust.js)
      this.logger?.error({ event: 'log-error', file: this.file, err }, `writing ${this.file} failed (${err.code === 'XPM_ERR_FILE_UNSAFE' ? err.message : err.code || err.message}); its lines are not written to it until reloadLogs`)
      if (this.stream === stream) this.stream = null
    })
    stream.on('warning', (err) => this.logger?.warn({ event: 'log-warning', file: this.file, err }, err.message))
    stream.on('rotated', (to) => {
      this.rotations++
      if (this.rotate?.maxFiles === 0) fs.promises.unlink(to).catch(() => {})
      this.logger?.debug({ event: 'log-rotated', file: this.file, to }, `rotated ${this.file}`)
    })
  }

  // text: whole lines, each ending in '\n'. Returns false when the writer should pause.
  write (text, bytes, lines) {
    if (this.closed || (!this.stream && this.file !== DEV_NULL && !this.held)) {
      this.droppedLines += lines
      return true
    }
    this.writtenBytes += bytes
    if (this.held) {
      this.held.push([text, bytes, lines])
      this.heldBytes += bytes
    } else {
      this.send(text, bytes, lines)
    }
    if (this.inflight + this.heldBytes < this.hwm) return true
    this.needDrain = true
    return false
  }

  send (text, bytes, lines) {
    if (!this.stream) {
      this.droppedLines += lines
      return
    }
    this.inflight += bytes
    this.stream.write(text, () => {
      this.inflight -= bytes
      this.settle()
    })
  }

  settle () {
    if (this.inflight === 0) this.emit('idle')
    if (this.needDrain && this.inflight + this.heldBytes <= this.hwm / 2) {
      this.needDrain = false
      this.emit('drain')
    }
  }

  get bufferedBytes () {
    return this.inflight + this.heldBytes
  }

  // Keeps new lines back and waits until everything before them is in the file: then the
  // files hold exactly writtenBytes of this sink's lines at their logical end.
  async quiesce (signal) {
    await this.opening // the lines held while the file opens go in first
    this.hold()
    if (this.inflight > 0) await once(this, 'idle', { signal })
  }

  hold () {
    this.holds++
    if (!this.held) this.held = []
  }

  release () {
    if (--this.holds > 0) return
    const held = this.held || []
    this.held = null
    this.heldBytes = 0
    for (const [text, bytes, lines] of held) this.send(text, bytes, lines)
    this.emit('released')
    this.settle()
  }

  // Closes the file stream and opens a new one at the same path: after an external logrotate
  // moved the file (reopen), or after emptying it (truncate).
  async recreate ({ truncate = false } = {}) {
    await this.quiesce()
    try {
      const old = this.stream
      this.stream = null
      if (old) await endStream(old)
      if (truncate) {
        await this.removeContent()
        this.ring?.clear()
      }
      if (!this.closed) {
        this.opening = this.open()
        await this.opening
      }
    } finally {
      this.release()
    }
  }

  async setRotate (rotate) {
    if (JSON.stringify(rotate) === JSON.stringify(this.rotate)) return
    this.rotate = rotate
    await this.recreate()
  }

  async removeContent () {
    if (this.file === DEV_NULL) return
    await fs.promises.truncate(this.file, 0).catch(ignoreMissing)
    const dir = path.dirname(this.file)
    const base = path.basename(this.file)
    const names = await fs.promises.readdir(dir).catch(() => [])
    const rotated = names.filter((n) => n.startsWith(base + '.') && /^\d+(\.gz)?$/.test(n.slice(base.length + 1)))
    await Promise.all(rotated.map((n) => fs.promises.unlink(path.join(dir, n)).catch(ignoreMissing)))
  }

  historyFiles () {
    return this.file === DEV_NULL ? [] : historyFiles(this.file, this.rotate)
  }

  async close () {
    if (this.closed) return
    this.closed = true
    if (this.holds) await once(this, 'released')
    const stream = this.stream
    this.stream = null
    if (stream) await endStream(stream)
    this.emit('drain')
  }
}

async function endStream (stream) {
  stream.end()
  try {
    await finished(stream)
  } catch {}
}

function ignoreMissing (err) {
  if (err.code !== 'ENOENT') throw err
}

module.exports = { FileSink }
