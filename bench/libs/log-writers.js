#!/usr/bin/env node
'use strict'

// node bench/libs/log-writers.js [--mb 200] [--rounds 5] [--old <file>]
// Log write throughput of the writer app logs go through (rotating-file-stream behind
// daemon/logs/rotating-file.js), against a bare fs.createWriteStream; with --old, also against
// another writer module exporting createStream(file, options) (the hand-written one this replaced:
// `git show 2455d00:daemon/logs/rotating-file.js`, its require of lib/shared/safe-fs made absolute).
// Lines of 100 bytes in 64 KiB batches (what FileSink hands over under load), rotation at 10 MiB
// keeping 3 files, each write waiting for back-pressure like FileSink does.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { once } = require('node:events')
const { performance } = require('node:perf_hooks')
const { openLogFile } = require('../../daemon/logs/rotating-file')

function arg (name, fallback) {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : process.argv[i + 1]
}

const MB = Number(arg('mb', 200))
const ROUNDS = Number(arg('rounds', 5))
const OLD = arg('old', null)
const LINE = 'x'.repeat(99) + '\n'
const BATCH = Buffer.from(LINE.repeat(Math.floor(65536 / LINE.length)))
const OPTIONS = { size: `${10 * 1024 * 1024}B`, rotate: 3 }

const writers = {
  'rotating-file-stream': (file) => openLogFile(file, OPTIONS),
  'fs.createWriteStream (no rotation)': async (file) => fs.createWriteStream(file, { flags: 'a' })
}
if (OLD) writers['hand-written (old)'] = async (file) => require(path.resolve(OLD)).createStream(file, OPTIONS)

async function once1 (make) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-bench-logw-'))
  try {
    const stream = await make(path.join(dir, 'app.log'))
    const total = MB * 1024 * 1024
    const started = performance.now()
    for (let written = 0; written < total; written += BATCH.length) {
      if (!stream.write(BATCH)) await once(stream, 'drain')
    }
    stream.end()
    await once(stream, 'finish')
    return MB / ((performance.now() - started) / 1000)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

// Rounds interleave the writers, so a burst of load on the machine hits all of them alike.
async function main () {
  console.log(`${MB} MiB per round, ${ROUNDS} rounds, median MiB/s (node ${process.version})`)
  const runs = Object.fromEntries(Object.keys(writers).map((name) => [name, []]))
  for (let i = 0; i < ROUNDS; i++) {
    for (const [name, make] of Object.entries(writers)) runs[name].push(await once1(make))
  }
  for (const [name, r] of Object.entries(runs)) {
    r.sort((a, b) => a - b)
    console.log(`${name.padEnd(36)} ${r[Math.floor(r.length / 2)].toFixed(0).padStart(6)} MiB/s  (min ${r[0].toFixed(0)}, max ${r.at(-1).toFixed(0)})`)
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
