'use strict'

// PM2's e2e scenarios about log files (misc/misc.sh, cli/reload.sh, internals/signal.sh): a
// cluster app writes one file per instance, with PM2's names, unless merge_logs; `xpm logs`
// reads them all. One daemon for the whole file.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, fixture, freePort } = require('../helpers/xpm')

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

// issue 34 §6: the tutorials' `pm2 start server.js -l logs.txt -i max`. PM2 splits a file per
// process only when its name ends in `.log`; logs.txt is one file, written by one writer even
// while it rotates, so no line of either worker is lost or cut.
test('-i 2 -l logs.txt: one shared logs.txt with both workers\' lines, whole across rotations; -l app.log: app-0.log and app-1.log', async (t) => {
  const h = createHome(t)
  const dir = fs.mkdtempSync(path.join(h.home, 'app-'))
  const COUNT = 3000
  const env = { SPEW_COUNT: String(COUNT), SPEW_HTTP: '1' }
  ok(await h.run(['start', fixture('spew-lines.js'), '-i', '2', '--name', 'txt', '-l', 'logs.txt', '--log-max-size', '16K', '--log-max-files', '100'], { env, cwd: dir }))
  ok(await h.run(['start', fixture('spew-lines.js'), '-i', '2', '--name', 'dotlog', '-l', 'app.log'], { env: { ...env, SPEW_PORT: String(await freePort()) }, cwd: dir }))

  const shared = path.join(dir, 'logs.txt')
  const all = () => fs.readdirSync(dir).filter((f) => f === 'logs.txt' || /^logs\.txt\.\d+$/.test(f)).flatMap((f) => lines(path.join(dir, f)))
  await waitFor(() => all().length >= 2 * COUNT, { message: 'both workers\' lines in logs.txt and its rotated files', timeout: 30000 })
  const got = all()
  for (const tag of ['0', '1']) {
    const seqs = got.filter((l) => l.startsWith(`${tag} `)).map((l) => Number(l.slice(2))).sort((a, b) => a - b)
    assert.deepEqual(seqs, Array.from({ length: COUNT }, (_, i) => i), `worker ${tag}: every line once, whole`)
  }
  assert.equal(got.length, 2 * COUNT, 'nothing but the two workers\' lines')
  assert.ok(fs.readdirSync(dir).some((f) => /^logs\.txt\.\d+$/.test(f)), 'the shared file rotated')
  assert.deepEqual(fs.readdirSync(dir).filter((f) => /^logs-\d/.test(f)), [], 'no logs-0.txt')

  for (const i of [0, 1]) await waitFor(() => lines(path.join(dir, `app-${i}.log`)).length === COUNT, { message: `app-${i}.log`, timeout: 30000 })
  assert.equal(fs.existsSync(path.join(dir, 'app.log')), false)
  assert.deepEqual(new Set(lines(path.join(dir, 'app-1.log')).map((l) => l.split(' ')[0])), new Set(['1']))

  const show = JSON.parse((await h.run(['show', 'txt', '--json'])).stdout)
  assert.deepEqual(show.map((p) => p.logs.combined), [shared, shared])
})
