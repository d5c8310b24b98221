'use strict'

const { XpmError } = require('../shared/errors')

// App options that `restart` and `reload` change, as PM2 applies them on a restart: the value is
// parsed as `xpm start` parses its flag (lib/shared/config), then set on the app's current spec, which
// the app takes before its processes are replaced. `--name` renames the app.
function addChangeOptions (command) {
  return command
    .option('--name <name>', 'rename the app (the target must name one app)')
    .option('--node-args <args>', 'new flags for the interpreter, e.g. "--max-old-space-size=512"')
    .option('--watch [paths]', 'from now on, restart when files change: in the cwd, or in these comma-separated paths')
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
  return parseFlags(wanted, { cwd })
}

// A normalized spec with the changes set (the name only when `rename`).
function applyChanges (spec, changes) {
  const { optionOf, findOption } = require('../shared/config/options')
  const out = structuredClone(spec)
  for (const [key, value] of Object.entries(changes)) {
    if (key === 'watch') {
      out.watch = value === true ? [spec.cwd] : Array.isArray(value) && value.length ? value : false
      continue
    }
    const option = (optionOf ?? findOption)(key)
    if (!option?.target) continue
    setPath(out, option.target, value)
  }
  return out
}

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
