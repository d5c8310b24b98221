'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const { openReuse, isSharingNote } = require('../../lib/cli/deploy/ssh-reuse')
const { sshCommand, sshExit } = require('../../lib/cli/deploy/ssh')

const host = (extra = {}) => ({ host: 'h', label: 'h', port: '22', user: 'u', key: '', ssh_options: [], tty: false, forwardAgent: false, ...extra })

test('one shared connection per host: ControlMaster options before the destination, -O exit ends it, the folder goes', async () => {
  const reuse = openReuse({})
  assert.ok(fs.statSync(reuse.dir).isDirectory())
  const [cmd, args] = sshCommand(host(), 'true', {}, reuse)
  assert.equal(cmd, 'ssh')
  assert.deepEqual(args, ['-o', 'ControlMaster=auto', '-o', `ControlPath=${reuse.dir}/%C`, '-o', 'ControlPersist=60', '-o', 'ConnectTimeout=10', '-p', '22', 'u@h', 'true'])
  assert.deepEqual(sshExit(host(), {}, reuse)[1].slice(-3), ['-O', 'exit', 'u@h'])
  const ended = []
  await reuse.close((h) => { ended.push(h.label) })
  assert.deepEqual(ended, ['h'])
  assert.equal(fs.existsSync(reuse.dir), false)
})

test('the user\'s own Control* options win; XPM_SSH_REUSE=0 turns sharing off', async () => {
  const reuse = openReuse({})
  const own = host({ ssh_options: ['ControlPath=~/.ssh/cm-%C'] })
  assert.deepEqual(sshCommand(own, 'true', {}, reuse)[1], ['-o', 'ControlPath=~/.ssh/cm-%C', '-o', 'ConnectTimeout=10', '-p', '22', 'u@h', 'true'])
  const ended = []
  await reuse.close((h) => { ended.push(h) })
  assert.deepEqual(ended, [])
  assert.equal(openReuse({ XPM_SSH_REUSE: '0' }), null)
})

test('ssh\'s note about a lost race for the shared connection is recognised', () => {
  assert.ok(isSharingNote('ControlSocket /tmp/xpm-ssh-x/ab already exists, disabling multiplexing'))
  assert.ok(!isSharingNote('ControlSocket is a word in this app\'s output'))
})
