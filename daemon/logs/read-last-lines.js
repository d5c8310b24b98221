'use strict'

const fs = require('node:fs')

const NL = 0x0a
const BLOCK = 64 * 1024
const MAX_BYTES = 16 * 1024 * 1024

// The last n lines of a file, read backwards in blocks (never the whole file, never sync I/O).
// skip: bytes at the end of the file to leave out. maxBytes bounds the memory one call uses;
// when it is reached fewer lines come back and reachedStart is false.
async function readLastLines (file, n, { skip = 0, maxBytes = MAX_BYTES, blockSize = BLOCK } = {}) {
  let fh
  try {
    // never through a symbolic link (the log writer refuses them too), never blocked by a FIFO
    fh = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
  } catch (err) {
    if (err.code === 'ENOENT' || err.code === 'ELOOP') return { lines: [], reachedStart: true, size: 0, ino: null, missing: true }
    throw err
  }
  try {
    const { size, ino } = await fh.stat()
    const end = Math.max(0, size - skip)
    const { lines, reachedStart } = await readBackwards(fh, end, n, maxBytes, blockSize)
    return { lines, reachedStart, size, ino, missing: false }
  } finally {
    await fh.close()
  }
}

async function readBackwards (fh, end, n, maxBytes, blockSize) {
  if (n <= 0 || end === 0) return { lines: [], reachedStart: end === 0 }
  const blocks = []
  let pos = end
  let start = -1
  let found = 0
  let total = 0
  while (pos > 0 && start < 0 && total < maxBytes) {
    const len = Math.min(blockSize, pos)
    pos -= len
    const buf = await readAt(fh, pos, len)
    blocks.unshift(buf)
    total += len
    // A newline in the last byte ends the last line; every other one starts a line after it.
    let i = buf.length - 1
    if (pos + i === end - 1 && buf[i] === NL) i--
    while (i >= 0 && (i = buf.lastIndexOf(NL, i)) !== -1) {
      if (++found === n) {
        start = pos + i + 1
        break
      }
      i--
    }
  }
  let data = Buffer.concat(blocks, total)
  let reachedStart = true
  if (start >= 0) {
    data = data.subarray(start - pos)
  } else if (pos > 0) {
    // Hit the byte limit: the first line is probably cut, leave it out.
    const first = data.indexOf(NL)
    data = first === -1 ? Buffer.alloc(0) : data.subarray(first + 1)
    reachedStart = false
  }
  if (!data.length) return { lines: [], reachedStart }
  const lines = data.toString('utf8').split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return { lines, reachedStart }
}

async function readAt (fh, position, length) {
  const buf = Buffer.allocUnsafe(length)
  let done = 0
  while (done < length) {
    const { bytesRead } = await fh.read(buf, done, length - done, position + done)
    if (bytesRead === 0) return buf.subarray(0, done)
    done += bytesRead
  }
  return buf
}

// The last n lines across a file and its rotated predecessors (files: newest first), leaving
// out `skip` bytes at the logical end. A file seen twice (renamed by a rotation between two
// opens) is read once.
async function readLastLinesAcross (files, n, { skip = 0, maxBytes = MAX_BYTES } = {}) {
  const chunks = []
  const seen = new Set()
  let need = n
  for (const file of files) {
    if (need <= 0) break
    const r = await readLastLines(file, need, { skip, maxBytes })
    if (r.missing) break
    if (seen.has(r.ino)) continue
    seen.add(r.ino)
    skip = Math.max(0, skip - r.size)
    chunks.unshift(r.lines)
    need -= r.lines.length
    if (!r.reachedStart) break
  }
  return chunks.flat()
}

module.exports = { readLastLines, readLastLinesAcross }
