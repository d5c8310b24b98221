'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { pathToFileURL } = require('node:url')
const { XpmError } = require('../../shared/errors')
const { homePaths } = require('../../shared/paths')
const { daemonNodeFlags } = require('../daemon-node-flags')

const DAEMON_ENTRY = path.join(__dirname, '..', '..', '..', 'daemon', 'index.js')

// `xpm startup`: a systemd unit that runs the daemon in the foreground at boot for this user,
// restoring the apps of the last `xpm save`. Absolute paths (this Node binary, this xpm), so a
// boot does not depend on a login shell's PATH; run it again after moving or upgrading Node.
//   Type=simple, no PIDFile: systemd watches the daemon process itself.
//   KillMode=mixed: `systemctl stop` sends SIGTERM to the daemon only, which stops every app
//   gracefully (cluster disconnect, kill_timeout) before systemd SIGKILLs what is left.
// metrics: XPM_METRICS as `xpm startup` found it (the daemon's Prometheus endpoint, docs/metrics.md).
// waitIp: PM2's --wait-ip, start once the network is online. nodeFlags: the daemon's V8 flags
// (lib/cli/daemon-node-flags.js), for this Node.
function renderUnit ({ user, home, xpmHome, node = process.execPath, nodeFlags = daemonNodeFlags(), entry = DAEMON_ENTRY, userUnit = false, stopTimeoutSec = 60, metrics = null, waitIp = false }) {
  const pathDirs = [...new Set([path.dirname(node), '/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'])]
  const lines = [
    '[Unit]',
    `Description=xpm process manager${userUnit ? '' : ` for ${user}`}`,
    `Documentation=${escapeValue(pathToFileURL(path.join(path.dirname(entry), '..', 'docs', 'persistence.md')).href)}`,
    ...(waitIp ? ['Wants=network-online.target', 'After=network.target network-online.target'] : ['After=network.target']),
    'StartLimitIntervalSec=0',
    '',
    '[Service]',
    'Type=simple',
    ...(userUnit ? [] : [`User=${user}`]),
    `WorkingDirectory=${escapeValue(home)}`,
    `Environment=${quote('XPM_HOME=' + xpmHome)}`,
    `Environment=${quote('PATH=' + pathDirs.join(':'))}`,
    ...(metrics ? [`Environment=${quote('XPM_METRICS=' + metrics)}`] : []),
    `ExecStart=${[node, ...nodeFlags, entry, '--foreground', '--resurrect'].map(quote).join(' ')}`,
    'Restart=always',
    'RestartSec=2',
    'KillMode=mixed',
    `TimeoutStopSec=${stopTimeoutSec}`,
    'LimitNOFILE=infinity',
    '',
    '[Install]',
    `WantedBy=${userUnit ? 'default.target' : 'multi-user.target'}`,
    ''
  ]
  return lines.join('\n')
}

// systemd expands % specifiers and splits on spaces: escape both.
function escapeValue (value) {
  return String(value).replaceAll('%', '%%')
}

function quote (value) {
  const v = escapeValue(value)
  return /[\s"\\]/.test(v) ? `"${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"` : v
}

// serviceName: PM2's --service-name (the unit is <serviceName>.service).
function unitTarget ({ userUnit, user, home, serviceName = null }) {
  const name = `${serviceName ? serviceName.replace(/\.service$/, '') : userUnit ? 'xpm' : `xpm-${user}`}.service`
  return userUnit
    ? { file: path.join(home, '.config', 'systemd', 'user', name), name, systemctl: ['--user'] }
    : { file: `/etc/systemd/system/${name}`, name, systemctl: [] }
}

// Long enough for the slowest graceful stop among the saved apps.
function stopTimeoutFor (dumpFile) {
  try {
    const dump = JSON.parse(fs.readFileSync(dumpFile, 'utf8'))
    const longest = Math.max(0, ...dump.apps.map((a) => Number(a.spec?.killTimeout) || 0))
    return Math.max(60, Math.ceil(longest / 1000) + 30)
  } catch {
    return 60
  }
}

// A value the daemon would not take is refused (exit 2) rather than written into a unit that
// would start a daemon without its endpoint at every boot.
function metricsFromEnv () {
  const value = process.env.XPM_METRICS
  const { parseMetricsAddress } = require('../../shared/metrics-address')
  return parseMetricsAddress(value, { from: 'XPM_METRICS' }) ? value.trim() : null
}

// PM2's `startup -u <user> --hp <home>` (run by root): a system unit for another user, whose
// xpm home is <home>/.xpm. `--user` alone is xpm's user unit.
function context (opts) {
  const info = os.userInfo()
  const other = typeof opts.user === 'string' && opts.user !== info.username ? opts.user : null
  if (opts.serviceName !== undefined && !/^[A-Za-z0-9:_.@-]+$/.test(opts.serviceName)) {
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected --service-name to be a unit name (letters, digits, : _ . @ -), got "${opts.serviceName}"`)
  }
  if (opts.hp !== undefined && !path.isAbsolute(opts.hp)) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected --hp to be an absolute path, got "${opts.hp}"`)
  const home = opts.hp ?? (other ? path.join('/home', other) : os.homedir())
  const paths = other || opts.hp ? homePaths(path.join(home, '.xpm')) : homePaths()
  return {
    user: typeof opts.user === 'string' ? opts.user : info.username,
    home,
    xpmHome: paths.home,
    userUnit: opts.user === true,
    serviceName: opts.serviceName ?? null,
    waitIp: opts.waitIp === true,
    stopTimeoutSec: stopTimeoutFor(paths.dumpFile),
    metrics: metricsFromEnv()
  }
}

async function startup (ctx, { options: opts }, { run = runSystemctl } = {}) {
  const c = context(opts)
  const unit = renderUnit(c)
  if (!opts.install) {
    ctx.io.stdout.write(unit)
    const t = unitTarget(c)
    ctx.io.stderr.write(`[xpm] to install it: xpm startup --install${c.userUnit ? ' --user' : ''} (writes ${t.file} and runs systemctl ${[...t.systemctl, 'enable', t.name].join(' ')})\n`)
    return
  }
  const t = unitTarget(c)
  try {
    fs.mkdirSync(path.dirname(t.file), { recursive: true })
    fs.writeFileSync(t.file, unit, { mode: 0o644 })
  } catch (err) {
    throw new XpmError('XPM_ERR_STARTUP_FAILED', `Could not write ${t.file} (${err.code || err.message})${c.userUnit ? '' : '; run it as root (sudo), or use --user for a user unit'}`, { cause: err })
  }
  run([...t.systemctl, 'daemon-reload'])
  run([...t.systemctl, 'enable', t.name])
  ctx.io.stdout.write(`[xpm] wrote ${t.file} and enabled ${t.name}\n`)
  ctx.io.stdout.write('[xpm] at boot it restores the apps of the last `xpm save` (run `xpm save` now if the current apps should come back)\n')
  if (c.userUnit) ctx.io.stdout.write(`[xpm] a user unit runs at boot only with lingering on: loginctl enable-linger ${c.user}\n`)
}

async function unstartup (ctx, { options: opts }, { run = runSystemctl } = {}) {
  const t = unitTarget(context(opts))
  if (!fs.existsSync(t.file)) {
    ctx.io.stdout.write(`[xpm] no unit at ${t.file}; nothing to remove\n`)
    return
  }
  run([...t.systemctl, 'disable', t.name], { allowFailure: true })
  try {
    fs.rmSync(t.file)
  } catch (err) {
    throw new XpmError('XPM_ERR_STARTUP_FAILED', `Could not remove ${t.file} (${err.code || err.message})`, { cause: err })
  }
  run([...t.systemctl, 'daemon-reload'], { allowFailure: true })
  ctx.io.stdout.write(`[xpm] disabled and removed ${t.file}\n`)
}

function runSystemctl (args, { allowFailure = false } = {}) {
  const res = spawnSync('systemctl', args, { encoding: 'utf8' })
  if ((res.error || res.status !== 0) && !allowFailure) {
    const why = res.error ? res.error.code : (res.stderr || '').trim().split('\n')[0]
    throw new XpmError('XPM_ERR_STARTUP_FAILED', `systemctl ${args.join(' ')} failed (${why || `exit ${res.status}`})`)
  }
  return res
}

module.exports = { startup, unstartup, renderUnit, unitTarget }
