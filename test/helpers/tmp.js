'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

// A new private folder under the system's temporary folder, removed with everything in it when
// the test file's process exits (node --test runs each file in its own process).
const made = []
function tempDir (prefix = 'xpm-test-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  if (made.length === 0) process.once('exit', removeAll)
  made.push(dir)
  return dir
}

function removeAll () {
  for (const dir of made) {
    try { fs.rmSync(dir, { recursive: true, force: true }) } catch {}
  }
}

module.exports = { tempDir }
