'use strict'

// The CLI run in this process (createProgram of lib/cli/main.js) against a real daemon: each
// command's output lands in buffers and its exit code is returned, with no bin/xpm process per
// command. The daemon is a real one, started by the first command as bin/xpm would start it.
const { Readable } = require('node:stream')
const path = require('node:path')
const { createProgram } = require('../../lib/cli/main')

const ROOT = path.join(__dirname, '..', '..')

// A stream a program writes to: what was written, as text.
function capture ({ isTTY = false, columns } = {}) {
  const chunks = []
  return {
    isTTY,
    columns,
    write (chunk) {
      chunks.push(String(chunk))
      return true
    },
    on () { return this },
    text: () => chunks.join('')
  }
}

// run(args, { env, cwd, input }) → { code, stdout, stderr }, as runXpm (helpers/xpm.js) gives
// them. env: the CLI's environment (XPM_HOME names the daemon); cwd: its folder (default: the
// repository, as runXpm); input: what it reads on stdin.
function inProcessRunner (baseEnv) {
  return async function run (args, { env, cwd, input } = {}) {
    const stdout = capture()
    const stderr = capture()
    const program = createProgram({
      stdout,
      stderr,
      stdin: Readable.from(input === undefined ? [] : [input]),
      env: { ...baseEnv, ...env },
      cwd: () => cwd ?? ROOT
    })
    const code = await program.run(['node', 'xpm', ...args])
    return { code: code ?? 0, stdout: stdout.text(), stderr: stderr.text() }
  }
}

module.exports = { capture, inProcessRunner }
