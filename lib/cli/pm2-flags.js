'use strict'

// Every flag of PM2's CLI (`pm2 --help`: PM2 declares them once for all commands) and of
// `pm2-runtime`, with what xpm does with it. This table drives:
//   - the hidden `xpm start` / `xpm-runtime` flags that only map to another flag or print a
//     notice (addPm2Flags), and what they become (applyPm2Flags);
//   - dropping a PM2 flag given to a command that has no use for it, with one notice instead of
//     "unknown option" (stripForeignFlags): PM2 accepts every flag on every command;
//   - the flag table of docs/migrating-from-pm2.md (renderFlagTable), kept in step by a test.
// kind: 'key' an app option (lib/shared/config/options.js has the flag); 'alias' the same as another
// xpm flag; 'command' an option of the commands named in `on`; 'notice' accepted, one notice.
const PLUS = 'PM2 Plus (Keymetrics) is not provided; ignored'

const PM2_FLAGS = [
  { flag: '-v --version', kind: 'command', on: ['xpm'], what: 'xpm\'s version' },
  { flag: '-s --silent', kind: 'command', on: ['xpm'], what: 'hides the [xpm] messages and the table printed after a command (also PM2_SILENT)' },
  { flag: '-m --mini-list', kind: 'command', on: ['xpm'], what: 'plain lines instead of the table' },
  { flag: '--no-color', kind: 'command', on: ['xpm'], what: 'no colours' },
  { flag: '-n --name <name>', kind: 'key', key: 'name' },
  { flag: '--interpreter <interpreter>', kind: 'key', key: 'interpreter' },
  { flag: '--interpreter-args <arguments>', kind: 'alias', to: 'nodeArgs', what: 'the same as `--node-args`' },
  { flag: '--node-args <node_args>', kind: 'key', key: 'node_args' },
  { flag: '-o --output <path>', kind: 'key', key: 'out_file' },
  { flag: '-e --error <path>', kind: 'key', key: 'error_file' },
  { flag: '-l --log [path]', kind: 'key', key: 'log_file' },
  { flag: '--filter-env [envs]', kind: 'key', key: 'filter_env' },
  { flag: '--log-type <type>', kind: 'key', key: 'log_type' },
  { flag: '--log-date-format <date format>', kind: 'key', key: 'log_date_format' },
  { flag: '--time', kind: 'key', key: 'time' },
  { flag: '--disable-logs', kind: 'key', key: 'disable_logs' },
  { flag: '--env <environment_name>', kind: 'command', on: ['start', 'restart', 'reload', 'startOrRestart', 'startOrReload', 'apply', 'xpm-runtime'], what: 'with an ecosystem file: merges `env_<name>` (and `deploy.<name>.env`) over `env`' },
  { flag: '-a --update-env', kind: 'command', on: ['start', 'restart', 'reload', 'startOrRestart', 'startOrReload'], what: 'the app gets the CLI\'s current environment' },
  { flag: '-f --force', kind: 'command', on: ['start', 'save'], what: 'start: see `pm2 start` in the command table; save: an empty list over a non-empty one' },
  { flag: '-i --instances <number>', kind: 'key', key: 'instances' },
  { flag: '--parallel <number>', kind: 'notice', on: ['restart', 'reload', 'startOrRestart', 'startOrReload'], what: 'xpm restarts and reloads the apps of a command in parallel, and the workers of one app one at a time so that it keeps serving; ignored (with `reload --hosts`: how many hosts are reloaded at once, docs/fleet.md)' },
  { flag: '--shutdown-with-message', kind: 'key', key: 'shutdown_with_message' },
  { flag: '-p --pid <pid>', kind: 'key', key: 'pid_file' },
  { flag: '-k --kill-timeout <delay>', kind: 'key', key: 'kill_timeout' },
  { flag: '--listen-timeout <delay>', kind: 'key', key: 'listen_timeout' },
  { flag: '--max-memory-restart <memory>', kind: 'key', key: 'max_memory_restart' },
  { flag: '--restart-delay <delay>', kind: 'key', key: 'restart_delay' },
  { flag: '--exp-backoff-restart-delay <delay>', kind: 'key', key: 'exp_backoff_restart_delay' },
  { flag: '-x --execute-command', kind: 'key', key: 'execute_command' },
  { flag: '--max-restarts [count]', kind: 'key', key: 'max_restarts' },
  { flag: '-u --user <username>', kind: 'alias', to: 'uid', on: ['start', 'startup'], what: 'start: the same as `--uid`; startup: the user the unit runs the daemon as' },
  { flag: '--uid <uid>', kind: 'key', key: 'uid' },
  { flag: '--gid <gid>', kind: 'key', key: 'gid' },
  { flag: '--namespace <ns>', kind: 'key', key: 'namespace' },
  { flag: '--cwd <path>', kind: 'key', key: 'cwd' },
  { flag: '--hp <home path>', kind: 'command', on: ['startup'], what: 'the home folder of `--user` in the unit (its XPM_HOME is `<hp>/.xpm`)' },
  { flag: '--wait-ip', kind: 'command', on: ['startup'], what: 'the unit waits for network-online.target' },
  { flag: '--service-name <name>', kind: 'command', on: ['startup', 'unstartup'], what: 'the unit\'s name (`<name>.service`)' },
  { flag: '-c --cron <cron_pattern>', kind: 'alias', to: 'cronRestart', what: 'the same as `--cron-restart`' },
  { flag: '-c --cron-restart <cron_pattern>', kind: 'key', key: 'cron_restart' },
  { flag: '-w --write', kind: 'notice', what: 'xpm does not write an app\'s configuration file; `xpm show <app> --json` prints it, `xpm import --dry-run` writes ecosystem files' },
  { flag: '--no-daemon', kind: 'command', on: ['start'], what: 'runs the apps in the foreground as `xpm-runtime` does (for containers), when no daemon runs yet; with a daemon running, a notice and a normal start' },
  { flag: '--source-map-support', kind: 'key', key: 'source_map_support' },
  { flag: '--only <application-name>', kind: 'command', on: ['start', 'stop', 'delete', 'restart', 'reload', 'startOrRestart', 'startOrReload', 'apply', 'xpm-runtime'], what: 'with an ecosystem file: only these apps' },
  { flag: '--disable-source-map-support', kind: 'key', key: 'disable_source_map_support' },
  { flag: '--wait-ready', kind: 'key', key: 'wait_ready' },
  { flag: '--merge-logs', kind: 'key', key: 'merge_logs' },
  { flag: '--watch [paths]', kind: 'key', key: 'watch' },
  { flag: '--ignore-watch <folders|files>', kind: 'key', key: 'ignore_watch' },
  { flag: '--watch-delay <delay>', kind: 'key', key: 'watch_delay', what: 'a bare number is seconds, as PM2 reads it (`--watch-delay 4`; `4000ms` also works)' },
  { flag: '--no-vizion', kind: 'key', key: 'vizion' },
  { flag: '--no-autostart', kind: 'key', key: 'autostart' },
  { flag: '--no-autorestart', kind: 'key', key: 'autorestart' },
  { flag: '--stop-exit-codes <exit_codes...>', kind: 'key', key: 'stop_exit_codes' },
  { flag: '--no-treekill', kind: 'key', key: 'treekill' },
  { flag: '--no-pmx', kind: 'key', key: 'pmx' },
  { flag: '--no-automation', kind: 'key', key: 'automation' },
  { flag: '--trace', kind: 'key', key: 'trace' },
  { flag: '--disable-trace', kind: 'key', key: 'disable_trace' },
  { flag: '--sort <field_name:sort>', kind: 'command', on: ['list'], what: 'orders the list' },
  { flag: '--attach', kind: 'command', on: ['start'], what: 'after the start, follows the started apps\' logs (as `xpm logs <apps> --lines 0`) until Ctrl-C' },
  { flag: '--v8', kind: 'key', key: 'v8' },
  { flag: '--event-loop-inspector', kind: 'key', key: 'event_loop_inspector' },
  { flag: '--deep-monitoring', kind: 'key', key: 'deep_monitoring' },
  { flag: '--ext <extensions>', kind: 'notice', what: 'xpm restarts on a change of any file under the watched paths; name what not to watch with --ignore-watch (globs: "*.{csv,tsv}"); ignored' },
  // pm2-runtime's own flags
  { flag: '--secret [key]', kind: 'notice', runtime: true, what: PLUS },
  { flag: '--public [key]', kind: 'notice', runtime: true, what: PLUS },
  { flag: '--machine-name [name]', kind: 'notice', runtime: true, what: PLUS },
  { flag: '--format', kind: 'command', runtime: true, on: ['xpm-runtime', 'logs'], what: 'the apps\' lines as key=value (`app=… id=… type=out message=…`)' },
  { flag: '--raw', kind: 'command', runtime: true, on: ['xpm-runtime', 'logs'], what: 'the apps\' lines as they are (PM2 runtime\'s default; xpm-runtime prefixes `name[instance]| ` unless --raw)' },
  { flag: '--formatted', kind: 'command', runtime: true, on: ['xpm-runtime'], what: 'lines prefixed with their app (xpm-runtime\'s default)' },
  { flag: '--json', kind: 'command', runtime: true, on: ['xpm-runtime', 'logs'], what: 'the apps\' lines as JSON objects' },
  { flag: '--delay <seconds>', kind: 'command', runtime: true, on: ['xpm-runtime'], what: 'waits this many seconds before starting the apps' },
  { flag: '--web [port]', kind: 'notice', runtime: true, what: 'xpm has no process web API; --metrics-address serves /metrics, /livez and /readyz; ignored' },
  { flag: '--no-auto-exit', kind: 'command', runtime: true, on: ['xpm-runtime'], what: 'keeps running when every app has ended (by default the runtime then exits with the apps\' status)' }
]

// '-n --name <name>' → { short: '-n', long: '--name', value: '<name>' | '[x]' | null }
function parseFlag (flag) {
  const m = /^(?:(-[a-zA-Z]) )?(--[a-z0-9-]+)(?: ([<[].*))?$/.exec(flag)
  return { short: m[1] ?? null, long: m[2], value: m[3] ?? null }
}

// commander's attribute: '--no-auto-exit' → 'autoExit', '--interpreter-args' → 'interpreterArgs'
function attributeOf (long) {
  return long.replace(/^--(no-)?/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase())
}

// The hidden flags of `xpm start` (and xpm-runtime): aliases and notices that the command does
// not define yet. A short flag another option already uses is left out.
function addPm2Flags (command, { runtime = false } = {}) {
  const { Option } = require('commander')
  const longs = new Set(command.options.map((o) => o.long))
  const shorts = new Set(command.options.map((o) => o.short).filter(Boolean))
  for (const entry of PM2_FLAGS) {
    if (entry.runtime && !runtime) continue
    if (entry.kind !== 'alias' && entry.kind !== 'notice') continue
    const { short, long, value } = parseFlag(entry.flag)
    if (longs.has(long)) continue
    const spelled = `${short && !shorts.has(short) ? short + ', ' : ''}${long}${value ? ' ' + value.replace('...', '') : ''}`
    command.addOption(new Option(spelled, `(PM2) ${entry.what ?? ''}`).hideHelp())
    longs.add(long)
    if (short) shorts.add(short)
  }
  return command
}

// The flags as xpm reads them: aliases folded into their flag, PM2's seconds for --watch-delay,
// one notice per flag given that xpm does not act on. Returns new opts.
function applyPm2Flags (opts, { notice = () => {} } = {}) {
  const out = { ...opts }
  for (const entry of PM2_FLAGS) {
    const { long } = parseFlag(entry.flag)
    const attr = attributeOf(long)
    if (entry.kind === 'alias' && out[attr] !== undefined && attr !== entry.to) {
      if (out[entry.to] === undefined) out[entry.to] = out[attr]
      delete out[attr]
    } else if (entry.kind === 'notice' && out[attr] !== undefined) {
      notice(`${long}: ${entry.what}`)
      delete out[attr]
    }
  }
  if (typeof out.watchDelay === 'string' && /^\d+(\.\d+)?$/.test(out.watchDelay)) out.watchDelay = `${Number(out.watchDelay) * 1000}ms`
  // PM2 key flags xpm accepts without acting on them: the option's notice, once
  const { OPTIONS, flagAttribute } = require('../shared/config/options')
  for (const option of OPTIONS) {
    if (!option.flag || !option.notice) continue
    const value = out[flagAttribute(option.flag)]
    if (value === undefined || (option.flag.startsWith('--no-') && value !== false)) continue
    if (option.quietWhen !== undefined && value === option.quietWhen) continue
    notice(`${/--[a-z0-9-]+/.exec(option.flag)[0]}: ${option.notice}`)
  }
  return out
}

// A PM2 flag given to a command that does not take it (`xpm stop api --watch`,
// `xpm delete all -s` works already): PM2 accepts every flag everywhere, so it is dropped with a
// notice instead of failing. argv: process.argv; command: the commander subcommand.
function stripForeignFlags (argv, command, program, { notice = () => {} } = {}) {
  const known = new Set()
  for (const c of [command, program]) {
    for (const o of c.options) {
      if (o.long) known.add(o.long)
      if (o.short) known.add(o.short)
      if (o.negate && o.long) known.add(o.long.replace(/^--no-/, '--'))
    }
  }
  known.add('-h').add('--help')
  const byName = new Map()
  const entryOf = new Map()
  for (const entry of PM2_FLAGS) {
    const f = parseFlag(entry.flag)
    entryOf.set(f, entry)
    if (!byName.has(f.long)) byName.set(f.long, f)
    if (f.short && !byName.has(f.short)) byName.set(f.short, f)
  }
  const out = []
  const end = argv.indexOf('--')
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (i < 2 || (end !== -1 && i >= end) || !arg.startsWith('-')) {
      out.push(arg)
      continue
    }
    const name = arg.split('=')[0]
    const f = byName.get(name)
    if (known.has(name) || !f) {
      out.push(arg)
      continue
    }
    const entry = entryOf.get(f)
    notice(entry?.kind === 'notice' ? `${f.long}: ${entry.what}` : `${f.long}: \`xpm ${command.name()}\` does not use it (a PM2 flag); ignored`)
    if (!arg.includes('=') && f.value) {
      const next = argv[i + 1]
      const takes = f.value.startsWith('<') || (next !== undefined && !next.startsWith('-'))
      if (takes && next !== undefined && (end === -1 || i + 1 < end)) i++
    }
  }
  return out
}

// The migration guide's flag table.
function renderFlagTable () {
  const { optionOf } = require('../shared/config/options')
  const rows = ['| PM2 flag | xpm |', '|---|---|']
  for (const entry of PM2_FLAGS) {
    const f = parseFlag(entry.flag)
    const shown = `\`${f.short ? f.short + ' ' : ''}${f.long}${f.value ? ' ' + f.value : ''}\`${entry.runtime ? ' (pm2-runtime)' : ''}`
    let text
    if (entry.kind === 'key') {
      const option = optionOf(entry.key)
      text = option.notice ? `accepted, as the \`${entry.key}\` key: ${option.notice}` : `the \`${entry.key}\` key${entry.what ? `; ${entry.what}` : ''}`
    } else if (entry.kind === 'alias') text = entry.what
    else if (entry.kind === 'notice') text = `accepted, with a notice: ${entry.what}`
    else text = `${entry.what} (${entry.on.map((c) => c === 'xpm' ? 'every command' : `\`${c}\``).join(', ')})`
    rows.push(`| ${shown.replaceAll('|', '\\|')} | ${text.replaceAll('|', '\\|')} |`)
  }
  return rows.join('\n')
}

module.exports = { PM2_FLAGS, parseFlag, attributeOf, addPm2Flags, applyPm2Flags, stripForeignFlags, renderFlagTable }
