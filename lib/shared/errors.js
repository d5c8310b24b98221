'use strict'

// The one catalogue of stable error codes. A code is never reused or renamed;
// docs/errors.md lists every code here and test/unit/errors.test.js keeps the two in step.
// exit: the CLI's exit status for the code (1 failure, 2 bad arguments or config).
const CODES = {
  XPM_ERR_BAD_ARGUMENT: { exit: 2, summary: 'A command-line argument or option has the wrong form.' },
  XPM_ERR_CONFIG_INVALID: { exit: 2, summary: 'An app option has the wrong type or value.' },
  XPM_ERR_CONFIG_UNKNOWN_KEY: { exit: 2, summary: 'An ecosystem file or app uses an option xpm does not know.' },
  XPM_ERR_CONFIG_LOAD: { exit: 2, summary: 'An ecosystem file could not be read, parsed or evaluated.' },
  XPM_ERR_DUPLICATE_APP: { exit: 2, summary: 'Two apps in one ecosystem file share a name.' },
  XPM_ERR_SCRIPT_NOT_FOUND: { exit: 2, summary: 'The script to start does not exist.' },
  XPM_ERR_CWD_INVALID: { exit: 2, summary: 'The working directory of an app does not exist or is not a directory.' },
  XPM_ERR_APP_NOT_FOUND: { exit: 1, summary: 'No app or process matches the given name or id.' },
  XPM_ERR_APP_EXISTS: { exit: 1, summary: 'An app of that name is already managed; nothing was started twice.' },
  XPM_ERR_START_FAILED: { exit: 1, summary: 'The app did not reach `online`.' },
  XPM_ERR_RELOAD_FAILED: { exit: 1, summary: 'A reload stopped because a replacement worker exited or was not ready in time; the old workers keep serving.' },
  XPM_ERR_CANCELLED: { exit: 1, summary: 'The command was cancelled by a later `stop`, `delete` or `kill` of the same app; whatever it had started is stopped.' },
  XPM_ERR_SHUTTING_DOWN: { exit: 1, summary: 'The daemon is shutting down (`xpm kill`) and takes no new command.' },
  XPM_ERR_DAEMON_UNREACHABLE: { exit: 1, summary: 'The daemon could not be started or reached.' },
  XPM_ERR_HOME_UNSAFE: { exit: 1, summary: '`XPM_HOME`, a folder above it or a file in it is owned by another user, writable by others or a symbolic link; xpm does not use it.' },
  XPM_ERR_TIMEOUT: { exit: 1, summary: 'A request to the daemon did not finish before its deadline.' },
  XPM_ERR_PROTOCOL: { exit: 1, summary: 'A message on the socket was not valid (bad JSON, too long, missing fields).' },
  XPM_ERR_PROTOCOL_VERSION: { exit: 1, summary: 'The CLI and the running daemon speak different protocol versions.' },
  XPM_ERR_UNKNOWN_METHOD: { exit: 1, summary: 'The daemon does not know the requested method.' },
  XPM_ERR_SAVE_FAILED: { exit: 1, summary: 'The app list could not be saved; the previous save is intact.' },
  XPM_ERR_SAVE_EMPTY: { exit: 1, summary: 'Saving would replace a non-empty app list with an empty one (use --force).' },
  XPM_ERR_DUMP_INVALID: { exit: 1, summary: 'The saved app list could not be read.' },
  XPM_ERR_DUMP_DAMAGED: { exit: 1, summary: '`dump.pm2` was damaged: it was set aside and the apps of the save before it (`dump.pm2.bak`) were restored; apps saved since may be missing. A warning: `xpm resurrect` exits 0, as PM2.' },
  XPM_ERR_FILE_EXISTS: { exit: 1, summary: 'A file that would be written already exists.' },
  XPM_ERR_TOO_MANY_APPS: { exit: 1, summary: 'Starting these apps would take the daemon over the number of apps it manages (1024).' },
  XPM_ERR_REPLY_TOO_LARGE: { exit: 1, summary: 'The answer to a request is larger than a reply may be (64 MiB); ask for less (fewer log lines, one app).' },
  XPM_ERR_INTERNAL: { exit: 1, summary: 'An unexpected error inside xpm; the daemon log has details.' },
  XPM_ERR_NOT_SUPPORTED: { exit: 1, summary: 'A PM2 command xpm does not provide (modules, PM2 Plus…); the message says what to use instead.' },
  XPM_ERR_IMPORT_SOURCE: { exit: 2, summary: 'The PM2 setup to import (`dump.pm2`, written by `pm2 save`) is missing, unreadable or not a list of processes.' },
  XPM_ERR_STARTUP_FAILED: { exit: 1, summary: 'The boot unit could not be written, enabled or removed (permissions, no systemd).' },
  XPM_ERR_DEPENDENCY_FAILED: { exit: 1, summary: 'An app was not started because an app it depends on (`depends_on`) is not managed, stopped, errored, or a one-shot job that did not exit 0.' },
  XPM_ERR_METRICS_LISTEN: { exit: 1, summary: 'The metrics and probes endpoint (`XPM_METRICS`, `xpm-runtime --metrics-address`) could not listen on its address (in use, not an address of this machine).' },
  XPM_ERR_KILL_INCOMPLETE: { exit: 1, summary: '`xpm kill` could not end everything: the daemon or a process carrying the home\'s tree tag still runs (the message names the pids).' },
  XPM_ERR_WEB_LISTEN: { exit: 1, summary: '`xpm web` could not listen on its address (the port is in use, or the host is not an address of this machine).' },
  XPM_ERR_WEB_FORBIDDEN: { exit: 1, summary: '`xpm web` refused a request: no or a wrong token, a `Host` that is not the bound address, or a cross-site POST (Origin, Sec-Fetch-Site, CSRF header).' },
  XPM_ERR_REUSE_PORT_UNSUPPORTED: { exit: 2, summary: '`reuse_port` needs Linux and a daemon running Node 22.12 or later (23.1 on the 23 line): the daemon\'s Node is the workers\' Node.' },
  XPM_ERR_PORT_TAKEN: { exit: 1, summary: 'A worker listened on an address and port where a worker of another app of the same home listens already (the two would split its connections): it was stopped and its instance is errored; the message names the other app.' },
  XPM_ERR_RELOAD_MODE_CHANGE: { exit: 2, summary: 'A reload cannot turn `reuse_port` on or off (a worker in one mode cannot take the port over from a worker in the other); nothing was changed. `xpm restart` with the same file applies it: every instance stops, then starts.' },
  XPM_ERR_WEB_READ_ONLY: { exit: 1, summary: '`xpm web --read-only` refuses every action (restart, reload, stop, start).' },
  XPM_ERR_OTEL_MISSING: { exit: 2, summary: 'An app has `otel` on but the OpenTelemetry packages (optional dependencies of xpm) are not installed: the app runs without telemetry; install xpm with its optional dependencies (docs/otel.md).' },
  XPM_ERR_DEPLOY_CONFIG: { exit: 2, summary: '`xpm deploy`: no deployment file, no `deploy` section or no such environment in it, or a target without `host`, `repo`, `path` or `ref`.' },
  XPM_ERR_DEPLOY_LOCAL_CHANGES: { exit: 1, summary: '`xpm deploy` refused to release from a git checkout with uncommitted or unpushed changes (the hosts fetch what is pushed); `--force` deploys anyway.' },
  XPM_ERR_DEPLOY_FAILED: { exit: 1, summary: '`xpm deploy`: a host did not end on the requested release (unreachable, key refused, a failed git step or hook, tracked files changed in a host\'s `source` folder, apps not online); the message names the host, the step and its last output lines, and which hosts were reverted.' },
  XPM_ERR_HOSTS_CONFIG: { exit: 2, summary: '`--host`/`--hosts`: a host not of the form `user@host[:port]`, no such group in the ecosystem file\'s `deploy` section nor in `XPM_HOME/hosts.json`, the same host twice, or more than 64 hosts.' },
  XPM_ERR_HOST_UNREACHABLE: { exit: 1, summary: 'A host of a fleet command (`--host`/`--hosts`) could not be reached over ssh, or its connection closed; the message names the host and ssh\'s reason, and the other hosts\' results are printed.' },
  XPM_ERR_REMOTE_XPM_MISSING: { exit: 1, summary: 'A host of a fleet command has no `xpm` on the PATH of its login shell (nor at `XPM_REMOTE_BIN`): install xpm there.' },
  XPM_ERR_ROLLOUT_STOPPED: { exit: 1, summary: '`reload --hosts`: a host\'s reload failed or its apps were not online and ready in time; the rollout stopped there and the hosts after it were not touched (the message says where each host stands).' }
}

class XpmError extends Error {
  constructor (code, message, { details, cause } = {}) {
    super(message, cause ? { cause } : undefined)
    if (!CODES[code]) throw new TypeError(`Unknown xpm error code ${code}`)
    this.name = 'XpmError'
    this.code = code
    this.details = details
  }

  get exitCode () {
    return CODES[this.code].exit
  }

  toJSON () {
    const out = { code: this.code, message: this.message }
    if (this.details !== undefined) out.details = this.details
    return out
  }

  static from (wire) {
    const code = CODES[wire?.code] ? wire.code : 'XPM_ERR_INTERNAL'
    return new XpmError(code, String(wire?.message ?? 'unknown error'), { details: wire?.details })
  }
}

function exitCodeFor (err) {
  return err instanceof XpmError ? err.exitCode : 1
}

module.exports = { CODES, XpmError, exitCodeFor }
