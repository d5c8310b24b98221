'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { renderUnit, startup, unstartup } = require('../../lib/cli/commands/startup')

test('renderUnit quotes paths with spaces and escapes systemd % specifiers', () => {
  const unit = renderUnit({ user: 'ann', home: '/home/ann', xpmHome: '/home/ann/my 100% apps', node: '/opt/node 20/bin/node', entry: '/srv/xpm/daemon/index.js' })
  assert.match(unit, /^Environment="XPM_HOME=\/home\/ann\/my 100%% apps"$/m)
  assert.match(unit, /^ExecStart="\/opt\/node 20\/bin\/node" \/srv\/xpm\/daemon\/index\.js --foreground --resurrect$/m)
  assert.match(unit, /^Environment="PATH=\/opt\/node 20\/bin:/m)
  assert.match(unit, /^User=ann$/m)
  assert.match(unit, /^KillMode=mixed$/m)
})

test('startup --install --user writes and enables a user unit; unstartup disables and removes it', async (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-startup-'))
  const saved = { HOME: process.env.HOME, XPM_HOME: process.env.XPM_HOME }
  process.env.HOME = home
  process.env.XPM_HOME = path.join(home, '.xpm')
  const write = process.stdout.write
  const printed = []
  process.stdout.write = (s) => printed.push(String(s))
  t.after(() => {
    process.stdout.write = write
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v
    fs.rmSync(home, { recursive: true, force: true })
  })
  const calls = []
  const run = (args) => calls.push(args.join(' '))
  await startup({ args: [{ install: true, user: true }] }, { run })
  const file = path.join(home, '.config', 'systemd', 'user', 'xpm.service')
  assert.match(fs.readFileSync(file, 'utf8'), /^WantedBy=default\.target$/m)
  assert.deepEqual(calls, ['--user daemon-reload', '--user enable xpm.service'])
  assert.match(printed.join(''), /enable-linger/)
  await unstartup({ args: [{ user: true }] }, { run })
  assert.equal(fs.existsSync(file), false)
  assert.deepEqual(calls.slice(2), ['--user disable xpm.service', '--user daemon-reload'])
})
