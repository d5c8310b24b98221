'use strict'

// A real OpenSSH server for the deploy tests: Debian's /usr/sbin/sshd, run by the test as the
// current user on a free loopback port, with its own host key and one authorized key made for
// the test (ssh-keygen). Its pid is killed by the test's cleanup; nothing else is touched.
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { spawn, execFileSync } = require('node:child_process')
const { waitFor, freePort } = require('./wait')
const { tempDir } = require('./tmp')
const { isAlive } = require('../../lib/shared/pid')

const SSHD = '/usr/sbin/sshd'

// Why the tests cannot run here (a reason to skip), or null.
function sshdMissing () {
  for (const [file, what] of [[SSHD, 'openssh-server (/usr/sbin/sshd)'], ['/usr/bin/ssh', 'openssh-client (ssh)'], ['/usr/bin/ssh-keygen', 'ssh-keygen']]) {
    if (!fs.existsSync(file)) return `${what} is not installed (apt-get install -y openssh-server)`
  }
  return null
}

// Starts sshd; resolves { port, dir, key, sshCommand, pid, stop, log }. sshCommand: the ssh
// command line (XPM_SSH) that logs in with the test's key and trusts the test's host key file.
// key: a client key made by an earlier startSshd (several "hosts" one XPM_SSH reaches);
// env: variables every session gets (sshd's SetEnv), such as the XPM_HOME of this "host"
// (HOME is the sshd's folder unless env sets it);
// logLevel: sshd's (VERBOSE logs each login).
async function startSshd (t, { key: sharedKey = null, env = {}, logLevel = 'ERROR' } = {}) {
  const dir = tempDir('xpm-sshd-')
  fs.chmodSync(dir, 0o700)
  const key = sharedKey || path.join(dir, 'client_key')
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'host_key')])
  if (!sharedKey) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key])
  fs.copyFileSync(`${key}.pub`, path.join(dir, 'authorized_keys'))
  // sshd wants its privilege separation folder even when it runs unprivileged
  if (process.getuid() === 0) fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 })
  const port = await freePort()
  const conf = path.join(dir, 'sshd_config')
  fs.writeFileSync(conf, [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${path.join(dir, 'host_key')}`,
    `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
    `PidFile ${path.join(dir, 'sshd.pid')}`,
    'StrictModes no',
    'UsePAM no',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'PermitRootLogin prohibit-password',
    `LogLevel ${logLevel}`,
    // one SetEnv line: sshd takes only the first. HOME is the sshd's own folder, so a session does
    // not run the machine user's ~/.bashrc (on a machine where it runs `pyenv rehash`, a session
    // killed by a test can leave its lock behind, and every later session waits 60 s for it)
    `SetEnv ${Object.entries({ HOME: dir, ...env }).map(([k, v]) => `${k}="${v}"`).join(' ')}`,
    ''
  ].join('\n'))
  const child = spawn(SSHD, ['-f', conf, '-D', '-e'], { stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  child.stderr.on('data', (d) => { log += d })
  const stop = async () => {
    if (!isAlive(child.pid)) return
    try { process.kill(child.pid, 'SIGTERM') } catch {}
    await waitFor(() => !isAlive(child.pid), { timeout: 5000 }).catch(() => { try { process.kill(child.pid, 'SIGKILL') } catch {} })
  }
  if (t) t.after(stop)
  await waitFor(() => accepts(port), { timeout: 10000, message: `sshd on port ${port} (${log.trim()})` })
  const sshCommand = `ssh -F /dev/null -i ${key} -o UserKnownHostsFile=${path.join(dir, 'known_hosts')} -o StrictHostKeyChecking=no -o BatchMode=yes -o LogLevel=ERROR`
  return { port, dir, key, sshCommand, pid: child.pid, stop, log: () => log }
}

function accepts (port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => { socket.end(); resolve(true) })
    socket.on('error', () => resolve(false))
  })
}

module.exports = { sshdMissing, startSshd }
