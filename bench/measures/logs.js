'use strict'

const fs = require('node:fs')
const { alternate, rows } = require('../lib/series')
const { SPEW } = require('../lib/apps')
const { delay } = require('../lib/util')

const COUNT = 100000

// Counts newlines in the given files, reading only what was appended since the last call.
function lineCounter () {
  const seen = new Map()
  let lines = 0
  return (files) => {
    for (const file of files) {
      let size
      try { size = fs.statSync(file).size } catch { continue }
      const from = seen.get(file) || 0
      if (size <= from) continue
      const fd = fs.openSync(file, 'r')
      const buf = Buffer.alloc(size - from)
      fs.readSync(fd, buf, 0, buf.length, from)
      fs.closeSync(fd)
      seen.set(file, size)
      for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) lines++
    }
    return lines
  }
}

// Distinct sequence numbers of `<tag> <seq>` lines found in the files.
function distinctLines (files) {
  const seqs = new Set()
  for (const file of files) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      const m = line.match(/(?:^|\s)\S+ (\d+)$/)
      if (m) seqs.add(Number(m[1]))
    }
  }
  return seqs.size
}

// A burst of 100,000 stdout lines from one fork-mode process (test/fixtures/spew-lines.js):
// time until they are all in the log files, and how many never arrive. Raw column: plain
// `node spew-lines.js > file`.
module.exports = {
  name: 'logs',
  title: 'Log burst (100,000 lines)',
  description: 'test/fixtures/spew-lines.js in fork mode writes 100,000 `<tag> <seq>` lines to stdout as fast as it can; the out log file is polled every 5 ms (while `start` is still running). Lost = lines whose sequence number never appears.',
  async run (ctx) {
    const all = ctx.contenders(['xpm', 'pm2', 'raw'])
    for (const c of all) await c.ping().catch(() => {})
    const result = await alternate(all, ctx.rounds(5, 3), async (c, round) => {
      const name = `spew${round}`
      const count = lineCounter()
      const t0 = performance.now()
      // Polled while `start` runs: a CLI that waits for the app to be stable returns after
      // the burst is over.
      const start = { done: false, error: null }
      const starting = c.start({ name, script: SPEW, env: { SPEW_COUNT: String(COUNT) } })
        .then(() => { start.done = true }, (err) => { start.error = err })
      let lines = 0
      let first = null
      let lastChange = performance.now()
      while (!start.error && lines < COUNT && (!start.done || performance.now() - lastChange < 5000)) {
        const now = count(c.outFiles(name))
        if (now !== lines) {
          lines = now
          lastChange = performance.now()
          if (first === null) first = lastChange
        }
        if (lines < COUNT) await delay(5)
      }
      const done = lastChange
      await starting
      if (start.error) throw start.error
      const files = c.outFiles(name)
      const distinct = distinctLines(files)
      await c.remove(name)
      if (first === null) throw new Error('no line reached the log files')
      return { total: done - t0, burst: done - first, lost: COUNT - distinct }
    }, ctx)
    return rows([
      { id: 'logs.burst', key: 'burst', label: 'first line → all lines in the file', unit: 'ms' },
      { id: 'logs.total', key: 'total', label: '`start` → all lines in the file', unit: 'ms' },
      { id: 'logs.lost', key: 'lost', label: 'lines lost', unit: 'count' }
    ], result)
  }
}
