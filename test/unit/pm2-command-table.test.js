'use strict'

// docs/migrating-from-pm2.md's command table stays complete: every PM2 command (PM2's CLI
// reference) has a row saying what xpm does, every command and alias of the commander program
// appears in it, and every xpm command a PM2 row names exists.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { buildProgram } = require('../../lib/cli/main')
const { NOTICES } = require('../../lib/cli/commands/notices')

// PM2's commands and aliases, from its CLI reference (`pm2 --help`, pm2.keymetrics.io/docs/usage/commands).
const PM2_COMMANDS = [
  'start', 'stop', 'restart', 'reload', 'gracefulReload', 'delete', 'del', 'scale', 'reset', 'sendSignal', 'send', 'attach',
  'ecosystem', 'init', 'startOrRestart', 'startOrReload', 'startOrGracefulReload',
  'list', 'ls', 'l', 'ps', 'status', 'jlist', 'prettylist', 'describe', 'desc', 'env', 'id', 'pid',
  'monit', 'imonit', 'dashboard', 'dash', 'logs', 'flush', 'reloadLogs', 'logrotate',
  'save', 'dump', 'resurrect', 'cleardump', 'startup', 'unstartup', 'update', 'updatePM2', 'deepUpdate', 'kill', 'ping',
  'report', 'examples', 'install', 'uninstall', 'module:generate', 'module:update', 'publish',
  'set', 'multiset', 'get', 'conf', 'config', 'unset', 'link', 'unlink', 'plus', 'register', 'login', 'logout', 'open',
  'monitor', 'unmonitor', 'web', 'deploy', 'trigger', 'snapshot', 'profile:cpu', 'profile:mem', 'inspect',
  'pull', 'forward', 'backward', 'gc', 'serve', 'expose', 'completion', 'sysmonit', 'slist', 'sysinfos'
]

function commandRows () {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'migrating-from-pm2.md'), 'utf8')
  const start = doc.indexOf('\n## Commands\n')
  assert.ok(start !== -1, 'a "## Commands" section')
  const end = doc.indexOf('\n## ', start + 1)
  const section = doc.slice(start, end === -1 ? undefined : end)
  const rows = []
  for (const line of section.split('\n')) {
    if (!line.startsWith('| ') || /^\|[-| ]+\|$/.test(line) || line.startsWith('| PM2 |')) continue
    const cells = line.slice(2, -2).split(/ (?<!\\)\| /)
    if (cells.length !== 3) continue
    const names = (cell, cmd) => [...cell.matchAll(new RegExp('`' + cmd + ' ([^`\\s]+)`', 'g'))].map((m) => m[1])
    rows.push({ pm2: names(cells[0], 'pm2'), xpm: names(cells[1], 'xpm'), what: cells[2].trim(), line })
  }
  return rows
}

test('every PM2 command has a row that says what xpm does', () => {
  const rows = commandRows()
  for (const name of PM2_COMMANDS) {
    const row = rows.find((r) => r.pm2.includes(name))
    assert.ok(row, `pm2 ${name} is missing from the command table of docs/migrating-from-pm2.md`)
    assert.ok(row.what.length > 10, `pm2 ${name}: say what xpm does`)
    assert.ok(row.xpm.length > 0, `pm2 ${name}: name the xpm command`)
  }
})

test('every command and alias of xpm appears in the table, and every xpm command a PM2 row names exists', () => {
  const rows = commandRows()
  const program = buildProgram(['node', 'xpm'])
  const names = new Set(['help'])
  for (const cmd of program.commands) for (const n of [cmd.name(), ...cmd.aliases()]) names.add(n)
  const documented = new Set(rows.flatMap((r) => r.xpm))
  for (const name of names) assert.ok(documented.has(name), `xpm ${name} (lib/cli/main.js) is missing from the command table of docs/migrating-from-pm2.md`)
  for (const row of rows.filter((r) => r.pm2.length)) {
    for (const name of row.xpm) assert.ok(names.has(name) || name === '--help', `the table names xpm ${name}, which lib/cli/main.js does not define`)
  }
  // a PM2 command xpm does not provide is still a command: its notice
  for (const name of PM2_COMMANDS) assert.ok(names.has(name), `pm2 ${name} must be an xpm command (implemented, or a notice in commands/notices.js)`)
  for (const name of Object.keys(NOTICES)) assert.ok(names.has(name))
})
