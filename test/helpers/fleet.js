'use strict'

// Several "hosts" for the fleet tests: one real sshd each on loopback (test/helpers/sshd.js), all
// reached with one client key, each giving its sessions its own XPM_HOME (sshd's SetEnv). A
// host's daemon is a real one, started by the
// first `xpm bridge` (or by host.home.run), cleaned up by createHome's cleanup. sshd sets a
// session's PATH itself, so the way to this checkout's bin/xpm is the deploy section's `env.PATH`
// (`--hosts production`) or XPM_REMOTE_BIN (`--host`).
const fs = require('node:fs')
const path = require('node:path')
const { startSshd } = require('./sshd')
const { createHome, runXpm, ROOT, BIN } = require('./xpm')
const { tempDir } = require('./tmp')

const HOST_PATH = `${path.join(ROOT, 'bin')}:${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`

// count hosts; hostEnv(i): more variables for host i (1-based). Resolves { hosts, env, xpm, dir,
// ecosystem(extra) } where hosts[i] = { label, spec, port, sshd, home }, env: the local CLI's
// environment (XPM_SSH, a local XPM_HOME of its own), xpm(args, opts): bin/xpm run locally in dir.
async function startFleet (t, count, { hostEnv = () => ({}) } = {}) {
  const hosts = []
  let key = null
  for (let i = 1; i <= count; i++) {
    const home = createHome(t)
    const sshd = await startSshd(t, { key, env: { XPM_HOME: home.home, ...hostEnv(i) } })
    key = sshd.key
    hosts.push({ label: `h${i}`, spec: `127.0.0.1:${sshd.port}`, port: sshd.port, sshd, home })
  }
  const local = createHome(t)
  const dir = tempDir('xpm-fleet-')
  const env = { ...local.env, XPM_SSH: hosts[0].sshd.sshCommand }
  // the deploy section `--hosts production` reads: the hosts by name, with the test's key and options
  const ecosystem = (extra = {}) => {
    const production = {
      user: 'root',
      key,
      ssh_options: [`UserKnownHostsFile=${path.join(dir, 'known_hosts')}`, 'StrictHostKeyChecking=no', 'BatchMode=yes', 'LogLevel=ERROR'],
      host: hosts.map((h) => ({ host: '127.0.0.1', port: String(h.port), name: h.label })),
      env: { PATH: HOST_PATH },
      ...extra
    }
    fs.writeFileSync(path.join(dir, 'ecosystem.config.js'), `module.exports = ${JSON.stringify({ apps: [], deploy: { production } }, null, 2)}\n`)
  }
  ecosystem()
  const xpm = (args, opts = {}) => runXpm(args, { cwd: dir, timeout: 120000, ...opts, env: { ...env, ...opts.env } })
  return { hosts, env, xpm, dir, ecosystem, local }
}

module.exports = { startFleet, HOST_PATH, REMOTE_BIN: BIN }
