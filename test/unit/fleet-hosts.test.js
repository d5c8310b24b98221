'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { tempDir } = require('../helpers/tmp')
const { parseHostSpec, resolveHosts } = require('../../lib/cli/fleet/hosts')
const { remoteCommand, compatible, sshLine } = require('../../lib/cli/fleet/connect')
const { sshCommand } = require('../../lib/cli/deploy/ssh')

test('host specs: user@host[:port], IPv6 in brackets; anything else is refused', () => {
  assert.deepEqual(pick(parseHostSpec('deploy@web1')), { host: 'web1', user: 'deploy', port: '', label: 'deploy@web1' })
  assert.deepEqual(pick(parseHostSpec('web1:2222')), { host: 'web1', user: '', port: '2222', label: 'web1:2222' })
  assert.deepEqual(pick(parseHostSpec('d@[::1]:22')), { host: '::1', user: 'd', port: '22', label: 'd@[::1]:22' })
  for (const bad of ['', 'a@b@c', 'web1:0', 'web1:70000', 'web 1', 'web1:x', '-oProxyCommand=x']) {
    assert.throws(() => parseHostSpec(bad), { code: 'XPM_ERR_HOSTS_CONFIG' }, bad)
  }
})

const pick = ({ host, user, port, label }) => ({ host, user, port, label })

test('--hosts: a deploy section with its user, port, key and ssh_options; else XPM_HOME/hosts.json', async () => {
  const dir = tempDir('xpm-fleet-unit-')
  const home = tempDir('xpm-fleet-home-')
  fs.writeFileSync(path.join(dir, 'ecosystem.config.js'), `module.exports = ${JSON.stringify({
    deploy: { production: { user: 'deploy', port: '2222', key: '/k', ssh_options: ['BatchMode=yes'], host: ['web1', { host: 'web2', port: '22', env: { XPM_HOME: '/srv/xpm', SECRET: 's' } }], repo: 'r', ref: 'origin/main', path: '/srv' } }
  })}\n`)
  const hosts = await resolveHosts({ hosts: 'production' }, { cwd: dir, home })
  assert.deepEqual(hosts.map((h) => h.label), ['deploy@web1', 'deploy@web2'])
  assert.deepEqual(sshCommand({ ...hosts[0], tty: false }, 'x', {})[1], ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=10', '-p', '2222', '-i', '/k', 'deploy@web1', 'x'])
  assert.deepEqual(hosts[1].bridgeEnv, { XPM_HOME: '/srv/xpm' }, 'only what finds the daemon goes on the remote command line')
  // no repo/ref/path needed in hosts.json; a group the ecosystem file lacks is looked up there
  fs.writeFileSync(path.join(home, 'hosts.json'), JSON.stringify({ staging: { user: 'ops', host: ['s1', 's2'] } }))
  assert.deepEqual((await resolveHosts({ hosts: 'staging' }, { cwd: dir, home })).map((h) => h.label), ['ops@s1', 'ops@s2'])
  await assert.rejects(resolveHosts({ hosts: 'nope' }, { cwd: dir, home }), { code: 'XPM_ERR_HOSTS_CONFIG', message: /--hosts nope: no such group/ })
  await assert.rejects(resolveHosts({ host: ['a', 'a'] }, { cwd: dir, home }), { code: 'XPM_ERR_HOSTS_CONFIG', message: /the same host twice: a/ })
  await assert.rejects(resolveHosts({ host: Array.from({ length: 65 }, (_, i) => `h${i}`) }, { cwd: dir, home }), { message: /at most 64/ })
  await assert.rejects(resolveHosts({}, { cwd: dir, home }), { code: 'XPM_ERR_HOSTS_CONFIG' })
})

test('the remote command: the host\'s env exported, XPM_REMOTE_BIN or xpm from the PATH then the login shell', () => {
  const host = { bridgeEnv: { XPM_HOME: '/srv/x y' } }
  assert.equal(remoteCommand(host, { XPM_REMOTE_BIN: '/opt/xpm/bin/xpm' }), 'export XPM_HOME="/srv/x y"; exec /opt/xpm/bin/xpm bridge')
  const cmd = remoteCommand({ bridgeEnv: {} }, {})
  assert.match(cmd, /^if command -v xpm >\/dev\/null 2>&1; then exec xpm bridge; fi; exec "\$\{SHELL:-\/bin\/sh\}" -lc '/)
})

test('the ssh line: deploy\'s, no tty, keep-alives unless ssh_options set them; XPM_SSH in place of ssh', () => {
  const host = { ...parseHostSpec('deploy@web1:2222'), tty: true, bridgeEnv: {} }
  const [cmd, args] = sshLine(host, {})
  assert.equal(cmd, 'ssh')
  assert.deepEqual(args.slice(0, -1), ['-o', 'ServerAliveInterval=15', '-o', 'ServerAliveCountMax=3', '-o', 'ConnectTimeout=10', '-p', '2222', 'deploy@web1'])
  const own = sshLine({ ...host, ssh_options: ['ServerAliveInterval=5'] }, { XPM_SSH: 'ssh -F /dev/null' })
  assert.equal(own[0], 'sh')
  assert.deepEqual(own[1].slice(3, 7), ['-o', 'ServerAliveInterval=5', '-o', 'ConnectTimeout=10'])
})

test('versions: the same major (0.x: the same minor) are compatible', () => {
  assert.equal(compatible('1.2.3', '1.9.0'), true)
  assert.equal(compatible('2.0.0', '1.9.0'), false)
  assert.equal(compatible('0.1.0', '0.1.7'), true)
  assert.equal(compatible('0.2.0', '0.1.7'), false)
  assert.equal(compatible(undefined, '0.1.0'), false)
})
