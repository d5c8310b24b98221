'use strict'

const rfs = require('rotating-file-stream')
const { createFolderTrust, trustLogFolder } = require('./folder-trust')

// Opens share a walk and remember a pass briefly (many apps start at once); a rotation, rare and
// long after the open, always walks again.
const trustAtOpen = createFolderTrust()

// A log file with classical rotation (<file>.1 newest … <file>.<rotate>, .gz when compressed), by
// size and/or on interval boundaries, written by rotating-file-stream ({ size: '10M',
// interval: '1d', rotate: 10, compress: 'gzip' }: zlib in-process; `compress: true` would run
// `cat | gzip` through a shell, so it is never passed). The library opens, renames and creates
// files by name, following links: safe only in a folder nobody else can write, so the folder is
// checked before the file is opened and again before every rotation (folder-trust.js). New files
// get 0666 minus the daemon's umask (the library's default `mode`).
// Events (the library's): 'open', 'rotation', 'rotated', 'warning', 'error' (code XPM_ERR_FILE_UNSAFE when
// the folder is refused at a rotation).

// For a file in a folder already trusted (XPM_HOME, checked at start-up): the daemon's own log.
function createStream (file, options = {}, { trust = null } = {}) {
  if (options.compress === true) options = { ...options, compress: 'gzip' }
  const stream = rfs.createStream(file, options)
  if (trust) guardRotation(stream, () => trust(file))
  return stream
}

// For an app's log file, anywhere: resolves once its folder passed, rejects (XPM_ERR_FILE_UNSAFE) if not.
async function openLogFile (file, options = {}, { trust = trustAtOpen, trustAtRotation = trustLogFolder } = {}) {
  await trust(file)
  return createStream(file, options, { trust: trustAtRotation })
}

// rotating-file-stream calls its own rotate() for size, interval and an oversized file at open;
// each goes through the check first. A failed check stops the file (destroy: 'error'), as the
// library would not report it from an interval rotation.
function guardRotation (stream, check) {
  const rotate = stream.rotate
  if (typeof rotate !== 'function') throw new TypeError('rotating-file-stream has no rotate(): check daemon/logs/rotating-file.js against its new version')
  stream.rotate = async function guardedRotate () {
    try {
      await check()
    } catch (err) {
      this.destroy(err)
      throw err
    }
    return rotate.call(this)
  }
}

module.exports = { createStream, openLogFile }
