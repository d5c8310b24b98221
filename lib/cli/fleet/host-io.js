'use strict'

// A host's own io (lib/cli/io.js) for running an unchanged command against that host's daemon:
// its output kept apart from the other hosts' (captured, or written live with the host's label
// before each line), its connection the fleet's client for the host, its settings the program's.
const { createIo } = require('../io')

// A write-only stream: whole lines go to onLine(line) once complete (flush() the last one).
function lineStream (like, onLine) {
  let rest = ''
  return {
    isTTY: like.isTTY,
    columns: like.columns,
    write (chunk) {
      const lines = (rest + String(chunk)).split('\n')
      rest = lines.pop()
      for (const line of lines) onLine(line)
      return true
    },
    flush () {
      if (rest) onLine(rest)
      rest = ''
    },
    on () { return this },
    once () { return this }
  }
}

// live: each line written at once to the program's stream, after `<label> | `; else kept in
// out/err (arrays of lines) for the caller to print.
function hostIo (io, label, client, { live = false } = {}) {
  const out = []
  const err = []
  const sink = (stream, kept) => (line) => (live ? stream.write(`${label} | ${line}\n`) : kept.push(line))
  const stdout = lineStream(io.stdout, sink(io.stdout, out))
  const stderr = lineStream(io.stderr, sink(io.stderr, err))
  const own = createIo({ stdout, stderr, stdin: io.stdin, env: io.env, cwd: io.cwd, connect: async () => client })
  own.output = { ...io.output }
  own.argv = io.argv
  own.paths = io.paths
  return { io: own, out, err, flush: () => { stdout.flush(); stderr.flush() } }
}

// The ctx (lib/cli/run.js) a command gets for one host: the program's, with the host's io and client.
function hostCtx (ctx, io, client) {
  return { ...ctx, io, client: null, changed: false, connect: async () => client, host: client.host }
}

module.exports = { hostIo, hostCtx, lineStream }
