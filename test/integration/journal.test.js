'use strict'

// The restart journal (`xpm why`, docs/health.md#the-restart-journal) with a real daemon: a
// crash, a memory-limit restart and a reload, in words and with the crash's last lines; still
// there after `kill -9` of the daemon.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, isAlive, fixture } = require('../helpers/xpm')

test('xpm why after a crash, a memory-limit restart and a reload; the journal outlives kill -9 of the daemon', async (t) => {
  const h = createHome(t, { inProcess: true })
  const dir = path.join(h.home, 'app-state')
  fs.mkdirSync(dir)
  const res = await h.run(['start', fixture('journal-app.js'), '--name', 'j', '--max-memory-restart', '100M'], { env: { JOURNAL_DIR: dir } })
  assert.equal(res.code, 0, res.stderr)
  await waitFor(async () => { const [p] = await h.jlist(); return p.restarts >= 1 && p.status === 'online' }, { message: 'the crash restart' })

  fs.writeFileSync(path.join(dir, 'grow'), '')
  await waitFor(async () => { const [p] = await h.jlist(); return p.restarts >= 2 && p.status === 'online' && /^memory/.test(p.lastRestartReason) }, { timeout: 20000, message: 'the memory restart' })

  const reload = await h.run(['reload', 'j'])
  assert.equal(reload.code, 0, reload.stderr)

  const why = await waitFor(async () => {
    const out = (await h.run(['why', 'j'])).stdout
    return /restarted: your command `xpm reload`/.test(out) && /stopped by xpm: your command `xpm reload`/.test(out) && out
  }, { message: 'the reload in the journal' })
  // newest first: the reload, the memory restart, the crash
  const at = (re) => why.search(re)
  assert.ok(at(/restarted: your command `xpm reload`/) < at(/restarted: over its memory limit: \(\d+\.\dM > 100M\)/))
  assert.ok(at(/restarted: over its memory limit/) < at(/restarted: it crashed \(exit code 1\)/))
  assert.match(why, /stopped by xpm: over its memory limit: \(\d+\.\dM > 100M\) after running [\d.]+ s/)
  assert.match(why, /crashed: exit code 1 after running \d+ ms; restarting in \d+ ms +│\n.*│ {3}last lines: +│\n(.*\n)*.*│ {5}out \| about to crash +│\n(.*\n)*.*│ {5}err \| .*Error: journal-app crashed on purpose/)
  assert.match(why, /err \| journal-app pid \d+ says hello on stderr/)

  const json = JSON.parse((await h.run(['why', 'j', '--json'])).stdout)
  assert.ok(json.some((e) => e.event === 'restart' && e.cause.kind === 'memory'))
  assert.ok(json.some((e) => e.event === 'exit' && e.cause.by === 'itself' && e.code === 1 && e.lines.some((l) => l.line === 'about to crash')))
  const show = await h.run(['show', 'j'])
  assert.match(show.stdout, /last event\s+│ stopped by xpm: your command `xpm reload`|last event\s+│ restarted: your command `xpm reload`/)

  // kill -9 of the daemon: the next command starts a new one, which restores the app; the
  // journal is still there
  const daemon = h.daemonPid()
  process.kill(daemon, 'SIGKILL')
  await waitFor(() => !isAlive(daemon), { message: 'the daemon to die' })
  const again = await waitFor(async () => {
    const r = await h.run(['why', 'j'])
    return r.code === 0 && r.stdout
  }, { timeout: 20000, message: 'xpm why on a new daemon' })
  assert.notEqual(h.daemonPid(), daemon)
  assert.match(again, /restarted: your command `xpm reload`/)
  assert.match(again, /restarted: over its memory limit/)
  assert.match(again, /out \| about to crash/)
})
