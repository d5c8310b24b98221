'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { Command } = require('commander')
const { renderTable } = require('../../lib/shared/config/render-docs')
const { OPTIONS, flagAttribute } = require('../../lib/shared/config/options')
const { addStartOptions } = require('../../lib/cli/start-options')
const { writeStarter, TEMPLATE } = require('../../lib/shared/config/starter-template')
const { resolveStart } = require('../../lib/shared/config')
const { tempDir } = require('../helpers/tmp')

const DOC = path.join(__dirname, '..', '..', 'docs', 'ecosystem.md')

test('docs/ecosystem.md contains the option table rendered from lib/shared/config/options.js', () => {
  const doc = fs.readFileSync(DOC, 'utf8')
  assert.ok(doc.includes(renderTable()), 'run `node lib/shared/config/render-docs.js --write` after changing options.js')
  for (const option of OPTIONS) assert.ok(doc.includes(`\`${option.key}\``), option.key)
  assert.ok(!renderTable().includes('undefined'), 'every option type has a name in render-docs.js TYPE_NAMES')
})

function parseStart (argv) {
  const command = new Command('start').argument('<target>').allowExcessArguments(true).exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: () => {} })
  addStartOptions(command)
  command.parse(argv, { from: 'user' })
  return command
}

test('every flag in options.js is an `xpm start` option, with no commander default', () => {
  const command = parseStart(['app.js'])
  const opts = command.opts()
  for (const option of OPTIONS.filter((o) => o.flag)) {
    const long = /--[a-z0-9-]+/.exec(option.flag)[0]
    assert.ok(command.options.some((o) => o.long === long), long)
    if (!option.flag.startsWith('--no-')) assert.equal(opts[flagAttribute(option.flag)], undefined, long)
  }
  for (const extra of ['--force', '--only', '--env', '--update-env']) assert.ok(command.options.some((o) => o.long === extra), extra)
})

test('flags parsed by commander resolve into the spec (-i -1, --no-autorestart, -l, --watch)', async () => {
  const fixtures = path.join(__dirname, '..', 'fixtures', 'ecosystems')
  const command = parseStart(['app.js', '-i', '-1', '--no-autorestart', '-l', '--kill-timeout', '2s', '--name', 'w', '--', '--port', '1'])
  const [spec] = (await resolveStart({ target: 'app.js', flags: command.opts(), scriptArgs: command.args.slice(1), cwd: fixtures, env: {} })).specs
  assert.equal(spec.instances, Math.max(1, os.availableParallelism() - 1))
  assert.equal(spec.autorestart, false)
  assert.equal(spec.killTimeout, 2000)
  assert.equal(spec.name, 'w')
  assert.match(spec.logs.logFile, /w\.log$/)
  assert.deepEqual(spec.args, ['--port', '1'])
  assert.equal(spec.execMode, 'cluster')
})

test('writeStarter writes a valid ecosystem file; an existing one is kept aside, then replaced (as PM2)', async () => {
  const dir = tempDir('xpm-init-')
  const { file, backup } = await writeStarter(dir)
  assert.equal(file, path.join(dir, 'ecosystem.config.js'))
  assert.equal(backup, null)
  assert.equal(fs.readFileSync(file, 'utf8'), TEMPLATE)
  fs.writeFileSync(file, 'module.exports = { apps: [] } // mine\n')
  const again = await writeStarter(dir, { now: () => new Date('2026-11-28T23:10:00.123Z') })
  assert.equal(again.backup, `${file}.bak-20261128T231000.123Z`)
  assert.equal(fs.readFileSync(again.backup, 'utf8'), 'module.exports = { apps: [] } // mine\n')
  assert.equal(fs.readFileSync(file, 'utf8'), TEMPLATE)
  fs.writeFileSync(path.join(dir, 'server.js'), '')
  const { specs } = await resolveStart({ target: file, env: {}, envName: 'production' })
  assert.equal(specs[0].name, 'web')
  assert.equal(specs[0].execMode, 'cluster')
  assert.equal(specs[0].env.NODE_ENV, 'production')
})
