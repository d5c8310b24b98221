'use strict'

const { XpmError } = require('../shared/errors')

// App options that `restart` and `reload` change, as PM2 applies them on a restart: the value is
// parsed as `xpm start` parses its flag (lib/shared/config), then set on the app's current spec, which
// the app takes before its processes are replaced. `--name` renames the app.
function addChangeOptions (command) {
  return command
    .option('--name <name>', 'rename the app (the target must name one app)')
    .option('--node-args <args>', 'new flags for the interpreter, e.g. "--max-old-space-size=512"')
    .option('--watch [paths]', 'watch these comma-separated paths from now on; alone, as PM2: turns watching on, or off when it is on')
    .option('--no-watch', 'stop watching for file changes')
    .option('--ignore-watch <paths>', 'paths or globs not to watch')
    .option('--cron-restart <expr>', 'restart on this cron schedule from now on, e.g. "0 3 * * *"')
    .option('--cron <expr>', 'the same as --cron-restart')
    .option('--max-memory-restart <size>', 'restart an instance whose memory goes above this size')
}

// The option values the user gave: { name, node_args, watch, ... } (PM2 keys), or null.
function changesOf (opts, { cwd = process.cwd() } = {}) {
  const given = { ...opts }
  if (given.cron !== undefined) {
    if (given.cronRestart !== undefined && given.cronRestart !== given.cron) throw new XpmError('XPM_ERR_BAD_ARGUMENT', '--cron and --cron-restart give two schedules; give one')
    given.cronRestart = given.cron
  }
  const wanted = {}
  for (const attr of ['name', 'nodeArgs', 'watch', 'ignoreWatch', 'cronRestart', 'maxMemoryRestart']) {
    if (given[attr] !== undefined) wanted[attr] = given[attr]
  }
  if (!Object.keys(wanted).length) return null
  const { parseFlags } = require('../shared/config/validate')
  // PM2: `--node-args=null` takes the flags away (no node_args at all, as PM2 shows it)
  const clearNodeArgs = wanted.nodeArgs === 'null'
  if (clearNodeArgs) delete wanted.nodeArgs
  const parsed = Object.keys(wanted).length ? parseFlags(wanted, { cwd }) : {}
  return clearNodeArgs ? { ...parsed, node_args: null } : parsed
}

// A normalized spec with the changes set (the name only when `rename`).
function applyChanges (spec, changes) {
  const { optionOf, findOption } = require('../shared/config/options')
  const out = structuredClone(spec)
  for (const [key, value] of Object.entries(changes)) {
    if (key === 'watch') {
      // a bare --watch toggles, as PM2's restart does (a stop turned it off: model/app.js)
      if (value === true) out.watch = hasWatch(spec) ? false : [spec.cwd]
      else out.watch = Array.isArray(value) && value.length ? value : false
      continue
    }
    const option = (optionOf ?? findOption)(key)
    if (!option?.target) continue
    setPath(out, option.target, value)
  }
  return out
}

const hasWatch = (spec) => Array.isArray(spec.watch) ? spec.watch.length > 0 : Boolean(spec.watch)

function setPath (obj, dotted, value) {
  const keys = dotted.split('.')
  let o = obj
  for (const k of keys.slice(0, -1)) {
    if (o[k] === null || typeof o[k] !== 'object') o[k] = {}
    o = o[k]
  }
  o[keys.at(-1)] = value
}

module.exports = { addChangeOptions, changesOf, applyChanges }
