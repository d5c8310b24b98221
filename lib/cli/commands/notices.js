'use strict'

const { XpmError } = require('../../shared/errors')

// PM2 commands xpm does not provide. PM2's vocabulary is never "unknown" to xpm: each of these
// prints one line saying what to do instead. A command that asks for something xpm cannot give
// exits 1 (XPM_ERR_NOT_SUPPORTED); one whose purpose xpm already serves, or that turns off
// something xpm does not have, exits 0. The migration guide's command table lists them all
// (test/unit/pm2-command-table.test.js keeps it complete).
const NOTICES = {
  trigger: { exit: 1, text: 'PM2 actions (@pm2/io) are not supported; have the app react to a signal and use `xpm sendSignal <signal> <app>`' },
  send: { exit: 1, text: 'xpm does not write to an app\'s standard input; talk to the app over a socket, or send it a signal with `xpm sendSignal`' },
  attach: { exit: 1, text: 'xpm does not attach a terminal to an app; follow its output with `xpm logs <app>`' },
  snapshot: { exit: 1, text: 'heap snapshots are not taken by xpm; start the app with --node-args="--heapsnapshot-signal=SIGUSR2", then `xpm sendSignal SIGUSR2 <app>`' },
  'profile:cpu': { exit: 1, text: 'CPU profiles are not taken by xpm; restart the app with --node-args="--cpu-prof" (Node writes the profile when it exits)' },
  'profile:mem': { exit: 1, text: 'heap profiles are not taken by xpm; restart the app with --node-args="--heap-prof" (Node writes the profile when it exits)' },
  inspect: { exit: 1, text: 'restart the app with --node-args="--inspect" to attach a debugger (`xpm restart <app> --node-args="--inspect"`)' },
  install: { exit: 1, text: 'xpm has no modules; log rotation (pm2-logrotate) is built in: log_max_size, log_max_files, log_interval, log_compress (docs/logs.md)', okFor: /^pm2-logrotate(@.*)?$/ },
  uninstall: { exit: 0, text: 'xpm has no modules; nothing to uninstall' },
  'module:generate': { exit: 1, text: 'xpm has no modules; run the code as an app of its own' },
  'module:update': { exit: 0, text: 'xpm has no modules; nothing to update' },
  publish: { exit: 1, text: 'xpm has no modules to publish' },
  logrotate: { exit: 0, text: 'no logrotate configuration is needed: xpm rotates the log files itself (log_max_size, log_interval; docs/logs.md). With the system\'s logrotate instead, call `xpm reloadLogs` after it moves the files' },
  link: { exit: 1, text: 'PM2 Plus (Keymetrics) is not supported; `xpm monit` shows CPU, memory, heap and event-loop latency, and `xpm jlist --pm2` feeds monitoring scripts' },
  unlink: { exit: 0, text: 'PM2 Plus (Keymetrics) is not supported; nothing to unlink' },
  plus: { exit: 1, text: 'PM2 Plus (Keymetrics) is not supported; `xpm monit` is the dashboard' },
  register: { exit: 1, text: 'PM2 Plus (Keymetrics) is not supported' },
  login: { exit: 1, text: 'PM2 Plus (Keymetrics) is not supported' },
  logout: { exit: 0, text: 'PM2 Plus (Keymetrics) is not supported; nothing to log out of' },
  open: { exit: 1, text: 'PM2 Plus (Keymetrics) is not supported; `xpm monit` is the dashboard' },
  monitor: { exit: 1, text: 'PM2 Plus (Keymetrics) is not supported; every app is watched by `xpm monit` already' },
  unmonitor: { exit: 0, text: 'PM2 Plus (Keymetrics) is not supported; nothing to stop monitoring' },
  pull: { exit: 1, text: 'xpm does not pull code; update the checkout yourself, then `xpm reload <app>`' },
  forward: { exit: 1, text: 'xpm does not move apps between git commits; check out the commit, then `xpm reload <app>`' },
  backward: { exit: 1, text: 'xpm does not move apps between git commits; check out the commit, then `xpm reload <app>`' },
  gc: { exit: 0, text: 'the daemon bounds its own memory (docs/decisions.md); nothing to collect' },
  deepUpdate: { exit: 1, text: 'install the new xpm with npm (npm install -g xpm), then run `xpm update`' },
  completion: { exit: 1, text: 'xpm has no shell completion script' },
  sysmonit: { exit: 1, text: 'xpm does not collect system metrics; `xpm monit` shows the apps\' CPU and memory' },
  slist: { exit: 1, text: 'xpm does not collect system metrics; `xpm monit` shows the apps\' CPU and memory', aliases: ['sysinfos'] }
}

// The action of a notice command: one line on stderr, the exit status of the table.
function notice (name) {
  return async (ctx, input) => {
    const entry = NOTICES[name]
    const args = input.args ?? []
    const ok = entry.exit === 0 || (entry.okFor && args.some((a) => entry.okFor.test(a)))
    if (ok) {
      if (!ctx.io.output.silent) ctx.io.stderr.write(`[xpm] ${name}: ${entry.text}\n`)
      return 0
    }
    throw new XpmError('XPM_ERR_NOT_SUPPORTED', `${name}: ${entry.text}`)
  }
}

module.exports = { NOTICES, notice }
