'use strict'

const fs = require('node:fs')
const path = require('node:path')

// Why a test that runs an app as user nobody cannot run here, or false. The app runs this Node
// as nobody: a Node kept under root's home (CI's extra versions) cannot be.
function nobodySkipReason () {
  if (process.getuid?.() !== 0) return 'needs root'
  // every folder on the way must let others through, and the binary let them run it
  const file = fs.realpathSync(process.execPath)
  for (let p = file; ; p = path.dirname(p)) {
    if ((fs.statSync(p).mode & 0o001) === 0) return `user nobody cannot run this Node (${file}: ${p} is closed to others)`
    if (path.dirname(p) === p) return false
  }
}

module.exports = { nobodySkipReason }
