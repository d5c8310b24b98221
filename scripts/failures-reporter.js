'use strict'

// A node:test reporter that writes one line per failed test: its file, its name and the first line
// of its error. scripts/test.js adds it beside the usual reporter when XPM_TEST_FAILURES_FILE names
// a file, so that CI can repeat the failures in its summary (the log's tail shows the last Node's
// run only).
const path = require('node:path')

const root = path.join(__dirname, '..')

function firstLine (error) {
  const cause = error && error.cause ? error.cause : error
  const text = cause && cause.message ? cause.message : String(cause)
  return text.split('\n').find((line) => line.trim() !== '') || ''
}

module.exports = async function * failuresReporter (source) {
  for await (const event of source) {
    if (event.type !== 'test:fail') continue
    const { name, file, details } = event.data
    const error = details && details.error
    // a suite whose tests failed: its tests have their own lines
    if (error && error.failureType === 'subtestsFailed') continue
    const where = file ? path.relative(root, file) : '?'
    yield `${where}: ${name} — ${firstLine(error).slice(0, 300)}\n`
  }
}
