'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

// One ssh connection per host for a whole `xpm deploy` run, through OpenSSH's own connection
// sharing (ControlMaster): the first step to a host opens it, every later step rides it, so a
// release costs one handshake (and one passphrase or key prompt) per host instead of one per
// step. The control sockets live in a private folder of this run; `close()` ends the masters
// and removes it. ControlPersist bounds a master this run could not end (the CLI killed) to a
// minute of idleness. Left out when the user's ssh_options already set Control* (their sharing
// wins) or XPM_SSH_REUSE=0, and when the folder's path would be too long for a socket.

const MAX_SOCKET_PATH = 100 // sun_path is 108 bytes on Linux; %C expands to 40 characters
const PERSIST_SECONDS = 60

function openReuse (env = process.env) {
  if (env.XPM_SSH_REUSE === '0') return null
  let dir
  try {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-ssh-'))
  } catch {
    return null
  }
  if (dir.length + 1 + 40 > MAX_SOCKET_PATH) {
    fs.rmSync(dir, { recursive: true, force: true })
    return null
  }
  const used = new Map() // label → host, the hosts a master may run for
  return {
    dir,
    // ssh options that share the host's connection; [] when the host sets its own
    optionsFor (host) {
      if (host.ssh_options.some((o) => /^Control(Master|Path|Persist)\b/i.test(o))) return []
      used.set(host.label ?? host.host, host)
      return ['-o', 'ControlMaster=auto', '-o', `ControlPath=${path.join(dir, '%C')}`, '-o', `ControlPersist=${PERSIST_SECONDS}`]
    },
    // ends every master this run opened (exitOne(host): ssh -O exit), then removes the folder
    async close (exitOne) {
      await Promise.all([...used.values()].map(exitOne))
      await fs.promises.rm(dir, { recursive: true, force: true })
    }
  }
}

// What ssh says when two steps to one host raced to open the shared connection: the loser runs on
// a connection of its own, and the line is not the step's output.
const isSharingNote = (line) => /^ControlSocket .* already exists, disabling multiplexing$/.test(line)

module.exports = { openReuse, isSharingNote }
