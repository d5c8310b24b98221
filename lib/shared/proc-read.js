'use strict'

// The daemon's one reader of small /proc files (a process's stat, environ, children; loadavg,
// /proc/stat, pid_max; also a pid file, a regular file being read whole the same way): open, one
// read into a pooled buffer, close. fs.promises.readFile costs
// five trips through the thread pool for the same text (open, fstat, a read, a read that finds
// the end, close) and a FileHandle; a crash restart's sweep makes dozens of these reads.
//
// /proc reports a size of 0, so the end of a file is known only from its reads. A read that came
// back at least SLACK bytes short of the buffer has the whole file: a /proc seq_file stops a read
// short only when its next record does not fit its page, and the records of the files read here
// (a pid in a children file; one record in stat, loadavg, /proc/stat) are much shorter than SLACK
// or come whole; environ and sysctl files fill every read they can. Otherwise the file goes on
// being read, in growing chunks, until a read returns nothing: a file larger than the buffer is
// read whole. Callbacks, not promises, inside: no synchronous I/O (the daemon's rule).

const fs = require('node:fs')

const SIZE = 4096
const SLACK = 256
const POOL_MAX = 16 // buffers kept for reuse (64 KiB at most); reads in flight beyond it allocate

const pool = []
const take = () => pool.pop() || Buffer.allocUnsafeSlow(SIZE)
const give = (buf) => { if (pool.length < POOL_MAX) pool.push(buf) }

// The text of a file (latin1: /proc's bytes as they are); rejects with the fs error (ENOENT,
// ESRCH, EACCES ...). size: the first read's buffer (tests); a read as large as it is not trusted
// to be whole.
function readProcFile (file, { size = SIZE, encoding = 'latin1' } = {}) {
  return new Promise((resolve, reject) => {
    fs.open(file, 'r', (openErr, fd) => {
      if (openErr) return reject(openErr)
      const first = size === SIZE ? take() : Buffer.allocUnsafe(size)
      const finish = (err, text) => fs.close(fd, () => (err ? reject(err) : resolve(text)))
      fs.read(fd, first, 0, first.length, null, (err, bytes) => {
        if (err) {
          if (size === SIZE) give(first)
          return finish(err)
        }
        if (bytes <= first.length - Math.min(SLACK, first.length - 1)) {
          const text = first.toString(encoding, 0, bytes)
          if (size === SIZE) give(first)
          return finish(null, text)
        }
        const chunks = [Buffer.from(first.subarray(0, bytes))]
        if (size === SIZE) give(first)
        readRest(fd, chunks, bytes, first.length * 2, (restErr, total) => {
          finish(restErr, restErr ? undefined : Buffer.concat(chunks, total).toString(encoding))
        })
      })
    })
  })
}

// Reads on from the file's position until a read returns 0 bytes.
function readRest (fd, chunks, total, next, done) {
  const buf = Buffer.allocUnsafe(next)
  fs.read(fd, buf, 0, next, null, (err, bytes) => {
    if (err) return done(err)
    if (bytes === 0) return done(null, total)
    chunks.push(bytes === next ? buf : buf.subarray(0, bytes))
    readRest(fd, chunks, total + bytes, Math.min(next * 2, 1 << 20), done)
  })
}

module.exports = { readProcFile, SIZE, SLACK, pooled: () => pool.length }
