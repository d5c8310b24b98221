'use strict'

const fs = require('node:fs')
const path = require('node:path')
const zlib = require('node:zlib')
const { Writable } = require('node:stream')
const { pipeline } = require('node:stream/promises')
const { openAppendNoFollow, createExclusive, CREATE_FLAGS } = require('../../lib/safe-fs')

const MAX_TIMER = 2147483647 // a longer setTimeout fires at once

// A log file with classical rotation (<file>.1 newest … <file>.<rotate>, .gz when compressed),
// by size and/or on interval boundaries; the options are rotating-file-stream's ({ size: '10M',
// interval: '1d', rotate: 10, compress: 'gzip' }), which this replaces because it opens files by
// name, following symbolic links. Here every open refuses a link (O_NOFOLLOW, or O_EXCL for the
// file made at each rotation), a file another user owns and a file with a second hard link: an
// app's log in a shared folder (/tmp) cannot be turned into a write, as the daemon's user, to a
// file someone else chose. New files get 0666 minus the daemon's umask (the user's), never more.
// Events: 'open', 'rotated' (the newest rotated file), 'warning', 'error'.
class RotatingFile extends Writable {
  constructor (file, { size = null, interval = null, rotate = 0, compress = false, mode = 0o666 } = {}) {
    super({ decodeStrings: true })
    this.file = file
    this.maxSize = parseSize(size)
    this.interval = parseInterval(interval)
    this.keep = rotate || (this.maxSize || this.interval ? 1 : 0)
    this.compress = compress === 'gzip' || compress === true
    this.mode = mode
    this.handle = null
    this.size = 0
    this.timer = null
    this.chain = Promise.resolve() // writes and rotations, one at a time
  }

  _construct (callback) {
    this.open().then(() => callback(), callback)
  }

  _write (chunk, encoding, callback) {
    this.serial(() => this.append(chunk)).then(() => callback(), callback)
  }

  // Chunk by chunk: the size is checked after each, so a burst never takes a file far past it.
  _writev (chunks, callback) {
    this.serial(async () => {
      for (const { chunk } of chunks) await this.append(chunk)
    }).then(() => callback(), callback)
  }

  _final (callback) {
    this.serial(() => this.closeFile()).then(() => callback(), callback)
  }

  _destroy (err, callback) {
    this.disarm()
    const handle = this.handle
    this.handle = null
    if (!handle) return callback(err)
    handle.close().catch(() => {}).then(() => callback(err))
  }

  serial (fn) {
    const run = this.chain.then(fn)
    this.chain = run.catch(() => {})
    return run
  }

  async append (data) {
    if (!this.handle) throw Object.assign(new Error(`${this.file} is not open`), { code: 'EBADF' })
    let offset = 0
    while (offset < data.length) {
      const { bytesWritten } = await this.handle.write(data, offset, data.length - offset)
      offset += bytesWritten
    }
    this.size += data.length
    if (this.maxSize && this.size >= this.maxSize) await this.rotate()
  }

  // fresh: right after a rotation the name should be free; it is created with O_EXCL, and
  // anything planted there in between is refused by the checked open below.
  async open ({ fresh = false } = {}) {
    let opened = null
    if (fresh) {
      try {
        opened = { handle: await createExclusive(this.file, { mode: this.mode }), size: 0 }
      } catch (err) {
        if (err.code !== 'EEXIST') throw err
      }
    }
    if (!opened) {
      try {
        opened = await openAppendNoFollow(this.file, { mode: this.mode })
      } catch (err) {
        if (err.code !== 'ENOENT') throw err
        await fs.promises.mkdir(path.dirname(this.file), { recursive: true })
        opened = await openAppendNoFollow(this.file, { mode: this.mode })
      }
    }
    this.handle = opened.handle
    this.size = opened.size
    this.emit('open', this.file)
    if (this.maxSize && this.size >= this.maxSize) return this.rotate()
    this.arm()
  }

  async closeFile () {
    this.disarm()
    const handle = this.handle
    this.handle = null
    if (handle) await handle.close()
  }

  name (index) {
    return `${this.file}.${index}${this.compress ? '.gz' : ''}`
  }

  async rotate () {
    await this.closeFile()
    for (let i = this.keep; i > 1; i--) await this.move(this.name(i - 1), this.name(i))
    const newest = this.name(1)
    let rotated = true
    if (this.compress) {
      try {
        await this.gzip(newest)
        await fs.promises.unlink(this.file)
      } catch (err) {
        rotated = false
        this.emit('warning', Object.assign(new Error(`compressing ${this.file} into ${newest} failed (${err.code || err.message}); it keeps growing until the next rotation`), { cause: err }))
      }
    } else {
      rotated = await this.move(this.file, newest)
    }
    if (rotated) this.emit('rotated', newest)
    await this.open({ fresh: rotated })
  }

  async move (from, to) {
    try {
      await fs.promises.rename(from, to) // renames a link itself, never what it points to
      return true
    } catch (err) {
      if (err.code !== 'ENOENT') this.emit('warning', Object.assign(new Error(`rotating ${from} to ${to} failed (${err.code || err.message})`), { cause: err }))
      return false
    }
  }

  async gzip (to) {
    await fs.promises.unlink(to).catch((err) => { if (err.code !== 'ENOENT') throw err })
    await pipeline(
      fs.createReadStream(this.file, { flags: fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW }),
      zlib.createGzip(),
      fs.createWriteStream(to, { flags: CREATE_FLAGS, mode: this.mode })
    )
  }

  // Rotation on interval boundaries, as rotating-file-stream draws them: seconds and minutes
  // from the epoch, hours, days and months in local time.
  arm () {
    if (!this.interval || this.destroyed) return
    this.disarm()
    const next = nextBoundary(this.interval, new Date())
    const fire = () => {
      this.timer = null
      const left = next - Date.now()
      if (left > 0) {
        this.timer = setTimeout(fire, Math.min(left, MAX_TIMER))
        this.timer.unref()
        return
      }
      this.serial(() => (this.handle ? this.rotate() : null)).catch((err) => this.destroy(err))
    }
    this.timer = setTimeout(fire, Math.min(Math.max(0, next - Date.now()), MAX_TIMER))
    this.timer.unref()
  }

  disarm () {
    clearTimeout(this.timer)
    this.timer = null
  }
}

function nextBoundary ({ num, unit }, now) {
  if (unit === 's' || unit === 'm') {
    const period = num * (unit === 's' ? 1000 : 60000)
    return (Math.floor(now.getTime() / period) + 1) * period
  }
  const y = now.getFullYear()
  const m = now.getMonth()
  const d = now.getDate()
  if (unit === 'h') return new Date(y, m, d, Math.floor(now.getHours() / num) * num + num).getTime()
  if (unit === 'd') return new Date(y, m, d + num).getTime()
  return new Date(y, m + num, 1).getTime() // 'M'
}

const SIZE_UNITS = { B: 1, K: 1024, M: 1024 * 1024, G: 1024 * 1024 * 1024 }

function parseSize (size) {
  if (size === null || size === undefined || size === false) return null
  if (typeof size === 'number') return size > 0 ? size : null
  const m = /^(\d+)\s*([BKMG])$/.exec(String(size))
  if (!m || Number(m[1]) <= 0) throw new Error(`Unknown log size ${JSON.stringify(size)}`)
  return Number(m[1]) * SIZE_UNITS[m[2]]
}

function parseInterval (interval) {
  if (!interval) return null
  const m = /^(\d+)([smhdM])$/.exec(String(interval))
  if (!m || Number(m[1]) <= 0) throw new Error(`Unknown log rotation interval ${JSON.stringify(interval)}`)
  return { num: Number(m[1]), unit: m[2] }
}

function createStream (file, options) {
  return new RotatingFile(file, options)
}

module.exports = { createStream, RotatingFile, nextBoundary, parseSize, parseInterval }
