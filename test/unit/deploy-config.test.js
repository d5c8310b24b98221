'use strict'

// `xpm deploy`'s pure parts: the deploy section read as pm2 deploy reads it, the command words,
// ssh's arguments, and the health verdict on `xpm jlist`'s output.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const config = require('../../lib/cli/deploy/config')
const { parseVerb } = require('../../lib/cli/commands/deploy')
const { sshArgs, sshCommand, sshTrouble } = require('../../lib/cli/deploy/ssh')
const { judge } = require('../../lib/cli/deploy/host-steps')
const { tempDir } = require('../helpers/tmp')

const target = (over = {}) => ({ production: { user: 'node', host: '212.83.163.1', ref: 'origin/master', repo: 'git@github.com:me/app.git', path: '/var/www/production', ...over } })

test('a target: one host or a list, ssh_options as a string or a list, the default post-deploy naming the file', () => {
  const one = config.resolveTarget(target({ ssh_options: 'StrictHostKeyChecking=no', port: 2222, key: '~/.ssh/deploy' }), 'production', { file: 'ecosystem.config.js' })
  assert.equal(one.hosts.length, 1)
  assert.equal(one.hosts[0].label, 'node@212.83.163.1')
  assert.equal(one.hooks['post-deploy'], 'xpm startOrRestart ecosystem.config.js --env production')
  assert.deepEqual(sshArgs(one.hosts[0]).slice(0, 6), ['-o', 'StrictHostKeyChecking=no', '-o', 'ConnectTimeout=10', '-p', '2222'])
  assert.equal(sshArgs(one.hosts[0], { HOME: '/home/me' })[7], '/home/me/.ssh/deploy')
  assert.equal(sshArgs(one.hosts[0]).at(-1), 'node@212.83.163.1')

  const many = config.resolveTarget(target({ host: ['a.example', 'b.example'], ssh_options: ['A=1', 'ConnectTimeout=3'], 'forward-agent': 'yes', needs_tty: true, user: undefined }), 'production', { file: 'f.json' })
  assert.deepEqual(many.hosts.map((h) => h.label), ['a.example', 'b.example'])
  assert.deepEqual(sshArgs(many.hosts[1]), ['-o', 'A=1', '-o', 'ConnectTimeout=3', '-t', '-A', 'b.example'])
})

test('host objects (xpm) set their own port, path and env; same addresses get labels that tell them apart', () => {
  const t = config.resolveTarget(target({ host: [{ host: '127.0.0.1', port: 1, path: '/a', env: { X: '1' } }, { host: '127.0.0.1', port: 1, path: '/b' }], env: { X: '0', Y: '2' } }), 'production', { file: 'f.json' })
  assert.deepEqual(t.hosts.map((h) => [h.label, h.path, h.env]), [
    ['node@127.0.0.1:1:/a', '/a', { X: '1', Y: '2' }],
    ['node@127.0.0.1:1:/b', '/b', { X: '0', Y: '2' }]
  ])
  assert.throws(() => config.resolveTarget(target({ host: [{ host: 'x', ref: 'y' }] }), 'production', { file: 'f' }), { code: 'XPM_ERR_DEPLOY_CONFIG', message: /host\[0\]\.ref/ })
})

test('what is missing or wrong in the section is refused with XPM_ERR_DEPLOY_CONFIG (exit 2)', () => {
  assert.throws(() => config.resolveTarget(null, 'production', { file: 'f.js' }), { code: 'XPM_ERR_DEPLOY_CONFIG', message: /f\.js has no deploy section/ })
  assert.throws(() => config.resolveTarget(target(), 'staging', { file: 'f.js' }), { message: 'staging environment is not defined in f.js (deploy has: production)' })
  assert.throws(() => config.resolveTarget(target({ repo: '', ref: undefined }), 'production', { file: 'f.js' }), { message: 'deploy.production needs repo, ref (as pm2 deploy)' })
  const notices = []
  config.resolveTarget(target({ path: 'rel/dir', colour: 'x' }), 'production', { file: 'f', cwd: '/home/me/app', notice: (l) => notices.push(l) })
  assert.deepEqual(notices, ['deploy.production.colour: not a key pm2 deploy reads; ignored', 'deploy path "rel/dir" is relative: resolved on this machine to /home/me/app/rel/dir, as pm2 deploy does'])
})

test('the file: an argument that looks like one (PM2\'s test), else PM2\'s default names in its order', async () => {
  assert.ok(config.isFileArg('ecosystem.config.js'))
  assert.ok(config.isFileArg('deploy.json'))
  assert.ok(!config.isFileArg('production'))
  const dir = tempDir('xpm-deploy-file-')
  assert.throws(() => config.findFile(null, dir), { code: 'XPM_ERR_DEPLOY_CONFIG', message: /ecosystem\.json, ecosystem\.yml/ })
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'x', deploy: target() }))
  fs.writeFileSync(path.join(dir, 'ecosystem.config.js'), `module.exports = ${JSON.stringify({ apps: [{ script: 'srv.js' }, { name: 'api', script: 'a.js' }], deploy: target({ ref: 'origin/js' }) })}`)
  assert.equal(config.findFile(null, dir), 'ecosystem.config.js')
  const { exported, deploy } = await config.readSection('ecosystem.config.js', dir)
  assert.equal(deploy.production.ref, 'origin/js')
  assert.deepEqual(config.appNames(exported), ['srv', 'api'])
  fs.rmSync(path.join(dir, 'ecosystem.config.js'))
  assert.equal(config.findFile(null, dir), 'package.json')
  assert.equal((await config.readSection('package.json', dir)).deploy.production.ref, 'origin/master')
})

test('the words after <env>', () => {
  assert.deepEqual(parseVerb([]), { verb: 'release' })
  assert.deepEqual(parseVerb(['update']), { verb: 'release' })
  assert.deepEqual(parseVerb(['v1.2.0']), { verb: 'release', ref: 'v1.2.0' })
  assert.deepEqual(parseVerb(['ref', 'origin/x']), { verb: 'release', ref: 'origin/x' })
  assert.deepEqual(parseVerb(['revert']), { verb: 'release', n: 1 })
  assert.deepEqual(parseVerb(['revert', '3']), { verb: 'release', n: 3 })
  assert.throws(() => parseVerb(['revert', '0']), { code: 'XPM_ERR_BAD_ARGUMENT' })
  assert.deepEqual(['curr', 'current', 'prev', 'previous', 'list', 'status', 'setup'].map((w) => parseVerb([w]).verb), ['current', 'current', 'previous', 'previous', 'list', 'status', 'setup'])
  assert.deepEqual(parseVerb(['exec', 'xpm', 'reload', 'all']), { verb: 'exec', command: 'xpm reload all' })
  assert.deepEqual(parseVerb(['run', 'ls -la']), { verb: 'exec', command: 'ls -la' })
  assert.throws(() => parseVerb(['exec']), { code: 'XPM_ERR_BAD_ARGUMENT' })
})

test('XPM_SSH replaces the ssh command line; ssh\'s failures are named', () => {
  const host = { host: 'h', port: '22', user: '', key: '', ssh_options: [], tty: false, forwardAgent: false }
  assert.deepEqual(sshCommand(host, 'true', {}), ['ssh', ['-o', 'ConnectTimeout=10', '-p', '22', 'h', 'true']])
  assert.deepEqual(sshCommand(host, 'true', { XPM_SSH: 'ssh -F /dev/null' }), ['sh', ['-c', 'exec ssh -F /dev/null "$@"', 'ssh', '-o', 'ConnectTimeout=10', '-p', '22', 'h', 'true']])
  assert.match(sshTrouble(['ssh: connect to host h port 22: Connection refused'], host), /^host unreachable: ssh could not connect to h port 22/)
  assert.match(sshTrouble(['node@h: Permission denied (publickey).'], host), /^key refused by h port 22/)
})

test('the health verdict on `xpm jlist`: every app of the file online and not unready', () => {
  const list = (...procs) => `some banner\n${JSON.stringify(procs)}\n`
  assert.deepEqual(judge(list({ name: 'web', status: 'online', ready: null }, { name: 'web', status: 'online', ready: true }), ['web']).ok, true)
  const bad = judge(list({ name: 'web', status: 'errored' }, { name: 'api', status: 'online', ready: false }, { name: 'other', status: 'online' }), ['web', 'api', 'worker'])
  assert.equal(bad.ok, false)
  assert.deepEqual(bad.problems, ['web: errored', 'api: online (not ready)', 'worker is not running'])
  assert.equal(judge('__xpm_absent__\n', ['web']).absent, true)
  const elsewhere = judge(list({ name: 'other', status: 'online' }), ['web'])
  assert.deepEqual([elsewhere.ok, elsewhere.absent, elsewhere.summary], [true, true, 'none of the apps is run by xpm here'])
  assert.equal(judge('nothing\n', ['web']).ok, false)
})
