'use strict'

// `--host`/`--hosts` on the commands that work across hosts. Each keeps its action: run without
// those options, it is the command as it always was; with them, lib/cli/fleet/run.js runs it
// against every host's daemon over ssh. The command table (command-table.js) stays as it is:
// the options and the wrapped action are put on its commands here.

// command → [file in lib/cli/commands, function]: the action the command table gives it.
const FLEET_COMMANDS = {
  list: ['list', 'list'],
  jlist: ['list', 'jlist'],
  prettylist: ['list', 'prettylist'],
  show: ['list', 'show'],
  why: ['why', 'why'],
  logs: ['logs', 'logs'],
  ping: ['daemon', 'ping'],
  restart: ['lifecycle', 'restart'],
  reload: ['lifecycle', 'reload'],
  stop: ['lifecycle', 'stop'],
  start: ['start', 'start'],
  scale: ['scale', 'scale'],
  save: ['save', 'save']
}

const collect = (value, list = []) => [...list, value]

function addFleetOptions (program, { act, lazy }) {
  for (const [name, [file, fn]] of Object.entries(FLEET_COMMANDS)) {
    const command = program.commands.find((c) => c.name() === name)
    command.option('--host <user@host[:port]>', 'run it on this host over ssh (repeatable; docs/fleet.md)', collect)
      .option('--hosts <name>', 'run it on the hosts of the ecosystem file\'s deploy.<name> section, or of XPM_HOME/hosts.json')
    if (name === 'reload') command.option('--parallel <n>', 'with --host/--hosts: hosts reloaded at once (default 1, one after the other)')
    command.action(act(acrossHosts(name, lazy(file, fn))))
  }
}

// The command's options, from its named input (lib/cli/run.js).
function optionsOf (ctx, input) {
  return input?.options || {}
}

function acrossHosts (name, action) {
  return (ctx, ...rest) => {
    const options = optionsOf(ctx, rest[0])
    if (!options.host?.length && !options.hosts) {
      if (options.parallel !== undefined) ctx.io.notice(`--parallel: ${require('../pm2-flags').PM2_FLAGS.find((f) => f.flag.startsWith('--parallel')).what}`)
      return action(ctx, ...rest)
    }
    return require('./run').runOnHosts(name, action, ctx, rest, options)
  }
}

module.exports = { addFleetOptions, FLEET_COMMANDS, optionsOf }
