'use strict'

// Issue 27: the daemon the CLI starts runs with its V8 flags (lib/cli/daemon-node-flags.js: a bounded
// young generation, one memory-reducer GC), and its apps, fork and cluster mode, never get them.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, fixture } = require('../helpers/xpm')
const { daemonNodeFlags } = require('../../lib/cli/daemon-node-flags')

const cmdline = (pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)

test('the daemon runs with its V8 flags; its apps do not inherit them', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  const h = createHome(t)
  for (const args of [['--name', 'one'], ['--name', 'many', '-i', '2']]) {
    const res = await h.run(['start', fixture('idle.js'), ...args])
    assert.equal(res.code, 0, res.stderr)
  }
  const daemonPid = Number(fs.readFileSync(path.join(h.home, 'daemon.pid'), 'utf8'))
  const flags = daemonNodeFlags()
  assert.deepEqual(cmdline(daemonPid).slice(1, 1 + flags.length), flags)
  const apps = (await h.jlist()).filter((p) => p.pid)
  assert.equal(apps.length, 3)
  for (const app of apps) {
    const args = cmdline(app.pid)
    for (const flag of flags) assert.ok(!args.includes(flag), `${app.name} (${app.mode}) runs without ${flag}: ${args.join(' ')}`)
  }
})
