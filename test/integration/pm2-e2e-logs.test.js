'use strict'

// PM2's e2e scenarios about log files (misc/misc.sh, cli/reload.sh, internals/signal.sh): a
// cluster app writes one file per instance, with PM2's names, unless merge_logs; `xpm logs`
// reads them all. One daemon for the whole file.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, fixture } = require('../helpers/xpm')

const ok = (res) => assert.equal(res.code, 0, `exit ${res.code}\n${res.stdout}\n${res.stderr}`)
const lines = (file) => { try { return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) } catch { return [] } }

test('-i 2 -o out.log: out-0.log and out-1.log (PM2\'s names), --merge-logs: one file; xpm logs reads every file', async (t) => {
  const h = createHome(t)
  const dir = fs.mkdtempSync(path.join(h.home, 'app-'))
  const env = { TICK_MS: '20' }
  ok(await h.run(['start', fixture('tick-lines.js'), '-i', '2', '--name', 'split', '-o', path.join(dir, 'outmerge.log')], { env }))
  ok(await h.run(['start', fixture('tick-lines.js'), '-i', '2', '--name', 'merged', '--merge-logs', '-o', path.join(dir, 'merged.log')], { env }))
  for (const i of [0, 1]) await waitFor(() => lines(path.join(dir, `outmerge-${i}.log`)).length > 5, { message: `outmerge-${i}.log` })
  await waitFor(() => lines(path.join(h.home, 'logs', 'split-error-1.log')).length > 0, { message: 'split-error-1.log in XPM_HOME/logs' })
  assert.equal(fs.existsSync(path.join(dir, 'outmerge.log')), false, 'no shared file without merge_logs')
  await waitFor(() => lines(path.join(dir, 'merged.log')).length > 10, { message: 'merged.log' })
  assert.equal(fs.existsSync(path.join(dir, 'merged-0.log')), false)

  // PM2 counts each line once: the two instances' files hold different lines
  const [a, b] = [0, 1].map((i) => new Set(lines(path.join(dir, `outmerge-${i}.log`))))
  assert.ok(a.size > 0 && b.size > 0)
  const res = await h.run(['logs', 'split', '--nostream', '--lines', '3', '--out', '--json'])
  ok(res)
  const got = res.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l))
  assert.deepEqual([...new Set(got.map((l) => l.instance))].sort(), [0, 1], 'lines of both instances')
  // docs/logs.md: past lines the daemon holds in memory have their time under --timestamp
  const stamped = await h.run(['logs', 'split', '--nostream', '--lines', '2', '--out', '--raw', '--timestamp', 'hh:mm:ss A'])
  ok(stamped)
  const past = stamped.stdout.split('\n').filter(Boolean)
  assert.ok(past.length > 0 && past.every((l) => /^\d{2}:\d{2}:\d{2} [AP]M tick \d+$/.test(l)), stamped.stdout)
  const show = JSON.parse((await h.run(['show', 'split', '--json'])).stdout)
  assert.deepEqual(show.map((p) => p.logs.out).sort(), [path.join(dir, 'outmerge-0.log'), path.join(dir, 'outmerge-1.log')])
})
