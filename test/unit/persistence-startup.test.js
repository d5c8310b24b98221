'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { renderUnit, startup, unstartup } = require('../../lib/cli/commands/startup')
const { createIo } = require('../../lib/cli/io')
const { capture } = require('../helpers/cli')
const { tempDir } = require('../helpers/tmp')

test('renderUnit quotes paths with spaces and escapes systemd % specifiers', () => {
  const unit = renderUnit({ user: 'ann', home: '/home/ann', xpmHome: '/home/ann/my 100% apps', node: '/opt/node 20/bin/node', nodeFlags: ['--max-semi-space-size=1'], entry: '/srv/xpm/daemon/index.js' })
  assert.match(unit, /^Environment="XPM_HOME=\/home\/ann\/my 100%% apps"$/m)
  assert.match(unit, /^ExecStart="\/opt\/node 20\/bin\/node" --max-semi-space-size=1 \/srv\/xpm\/daemon\/index\.js --foreground --resurrect$/m)
  assert.match(unit, /^Environment="PATH=\/opt\/node 20\/bin:/m)
  assert.match(unit, /^User=ann$/m)
  assert.match(unit, /^KillMode=mixed$/m)
})

test('startup --install --user writes and enables a user unit; unstartup disables and removes it', async (t) => {
  const home = tempDir('xpm-startup-')
  const saved = { HOME: process.env.HOME, XPM_HOME: process.env.XPM_HOME }
  process.env.HOME = home
  process.env.XPM_HOME = path.join(home, '.xpm')
  const stdout = capture()
  const io = createIo({ stdout, stderr: capture() })
  t.after(() => {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v
    fs.rmSync(home, { recursive: true, force: true })
  })
  const calls = []
  const run = (args) => calls.push(args.join(' '))
  await startup({ io }, { options: { install: true, user: true } }, { run })
  const file = path.join(home, '.config', 'systemd', 'user', 'xpm.service')
  assert.match(fs.readFileSync(file, 'utf8'), /^WantedBy=default\.target$/m)
  assert.deepEqual(calls, ['--user daemon-reload', '--user enable xpm.service'])
  assert.match(stdout.text(), /enable-linger/)
  await unstartup({ io }, { options: { user: true } }, { run })
  assert.equal(fs.existsSync(file), false)
  assert.deepEqual(calls.slice(2), ['--user disable xpm.service', '--user daemon-reload'])
})

test('PM2\'s startup flags: -u <user> --hp <home> (a system unit for that user), --service-name, --wait-ip', async () => {
  const stdout = capture()
  const stderr = capture()
  const io = createIo({ stdout, stderr })
  await startup({ io }, { options: { user: 'www', hp: '/home/www', serviceName: 'web', waitIp: true } }, { run: () => {} })
  const unit = stdout.text()
  assert.match(unit, /^User=www$/m)
  assert.match(unit, /^WorkingDirectory=\/home\/www$/m)
  assert.match(unit, /^Environment=XPM_HOME=\/home\/www\/\.xpm$/m)
  assert.match(unit, /^Wants=network-online\.target$/m)
  assert.match(unit, /^After=network\.target network-online\.target$/m)
  assert.match(stderr.text(), /\/etc\/systemd\/system\/web\.service/)
  await assert.rejects(startup({ io }, { options: { serviceName: 'a b' } }, { run: () => {} }), { code: 'XPM_ERR_BAD_ARGUMENT' })
  await assert.rejects(startup({ io }, { options: { user: 'www', hp: 'rel' } }, { run: () => {} }), { code: 'XPM_ERR_BAD_ARGUMENT' })
})
