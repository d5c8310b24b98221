'use strict'

const { OPTIONS } = require('../shared/config/options')
const { TYPES } = require('../shared/config/types')

// The `xpm start` flags come from the same definitions as the ecosystem keys (lib/shared/config/options.js).
// No commander defaults: a flag that was not given must stay undefined, so file values apply;
// the values are parsed and checked in lib/shared/config (parseFlags), with the same messages as files.
function addStartOptions (command, { runtime = false } = {}) {
  const { Option } = require('commander')
  for (const option of OPTIONS) {
    if (!option.flag) continue
    const flag = new Option(option.flag, flagDescription(option))
    // PM2 flags xpm accepts without acting on them work, but are not advertised
    command.addOption(option.notice !== undefined ? flag.hideHelp() : flag)
  }
  command
    .option('-f, --force', 'replace an app of that name that already runs: restart it with this spec')
    .option('--only <names>', 'with an ecosystem file: only these apps (comma-separated)')
    .option('--env <name>', 'with an ecosystem file: merge env_<name> over env')
    .option('-a, --update-env', 'replace the app\'s environment with the CLI\'s current one')
  if (!runtime) {
    command
      .option('--attach', 'after the start, follow the started apps\' logs until Ctrl-C')
      .option('--no-daemon', 'no daemon running yet: run the apps in the foreground, as xpm-runtime (containers)')
  }
  return require('./pm2-flags').addPm2Flags(command, { runtime })
}

function flagDescription (option) {
  if (option.flagHelp) return option.flagHelp
  const description = option.description.replace(/ \(xpm\)$/, '')
  const text = description[0].toLowerCase() + description.slice(1)
  if (option.default === undefined || option.default === null || option.flag.startsWith('--no-')) return text
  if (/\(default: /.test(text)) return text
  const format = TYPES[option.type].format
  const value = format ? format(option.default) : option.default
  if (Array.isArray(value) || typeof value === 'boolean') return text
  return `${text} (default: ${value})`
}

module.exports = { addStartOptions }
