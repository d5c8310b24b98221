'use strict'

// PM2's keys and values with behaviour, through the config model and the pieces of the daemon
// that read them (instance env, launch options): fast, no processes.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { normalizeApp, resolveStart, checkSpec, validateSpec } = require('../../lib/shared/config')
const { loadEcosystem } = require('../../lib/shared/config/load-ecosystem')
const { instanceEnv } = require('../../lib/shared/config/instance-env')
const { inferInterpreter, isNodeRuntime, nodeShebang, nodeCommandLine } = require('../../lib/shared/config/script')
const { resolveUser, privilegeProblem } = require('../../lib/shared/config/users')
const { pidFilePath, handleOptions, writePidFile } = require('../../daemon/launchers/app-options')
const { ProcessHandle } = require('../../daemon/launchers/handle')
const { launchEnv } = require('../../daemon/launchers/tree-env')
const { nodeExecArgv } = require('../../daemon/launchers/agent-args')
const { tempDir } = require('../helpers/tmp')

const CORPUS = path.join(__dirname, '..', 'fixtures', 'ecosystems', 'pm2-corpus')
const env = { PATH: process.env.PATH, HOME: '/nonexistent' }
const app = (raw, opts = {}) => normalizeApp({ script: 'app.js', ...raw }, { baseDir: CORPUS, env, cpus: 4, ...opts })
const tmp = () => tempDir('xpm-pm2keys-')

test('instance_var renames NODE_APP_INSTANCE; increment_var counts up from the app\'s value (or port)', () => {
  assert.deepEqual(instanceEnv(app({}), 2), { NODE_APP_INSTANCE: '2' })
  assert.deepEqual(instanceEnv(app({ instance_var: 'INSTANCE_ID' }), 1), { INSTANCE_ID: '1' })
  const spec = app({ instances: 3, increment_var: 'PORT', env: { PORT: 4000 } })
  assert.deepEqual([0, 1, 2].map((i) => instanceEnv(spec, i).PORT), ['4000', '4001', '4002'])
  assert.deepEqual([0, 1].map((i) => instanceEnv(app({ increment_var: 'PORT', port: 5000 }), i).PORT), ['5000', '5001'])
  assert.deepEqual([0, 1].map((i) => instanceEnv(app({ increment_var: 'SLOT' }), i).SLOT), ['0', '1'], 'from 0 when the env does not set it')
  assert.deepEqual(instanceEnv(app({ instance_var: 'newonlyfans-backend' }), 1), { 'newonlyfans-backend': '1' }, 'any name the environment can hold, as PM2')
  assert.deepEqual(instanceEnv(app({ instance_var: 'NOT VALID' }), 0), { 'NOT VALID': '0' })
  for (const bad of ['A=B', '', 'a\0b']) {
    assert.throws(() => app({ instance_var: bad }), { code: 'XPM_ERR_CONFIG_INVALID', message: /`instance_var`/ }, bad)
  }
})

test('names: name_prefix, append_env_to_name; namespace defaults to "default"', async () => {
  assert.equal(app({ name: 'api', name_prefix: 'team' }).name, 'team:api')
  assert.equal(app({ name: 'api', append_env_to_name: true }, { envName: 'staging' }).name, 'api-staging')
  assert.equal(app({ name: 'api', append_env_to_name: true }).name, 'api', 'without --env nothing is appended')
  assert.equal(app({}).namespace, 'default')
  assert.equal(app({ namespace: 'billing' }).namespace, 'billing')
  assert.throws(() => app({ namespace: 'all' }), { message: /`namespace`/ })
  // stop/delete derive the same names without building specs
  const dir = tmp()
  const file = path.join(dir, 'ecosystem.config.js')
  fs.writeFileSync(file, 'module.exports = { apps: [{ name: \'api\', script: \'gone.js\', name_prefix: \'team\', append_env_to_name: true, env_prod: {} }] }')
  const { resolveTargets } = require('../../lib/shared/config')
  assert.deepEqual((await resolveTargets({ target: file, envName: 'prod', withSpecs: false })).names, ['team:api-prod'])
})

test('the environment: filter_env, port, objects as JSON, env_<name> last', () => {
  const base = { PATH: '/bin', AWS_SECRET: 'x', npm_config_cache: 'y', KEEP: '1' }
  const spec = (raw, envName) => normalizeApp({ script: 'app.js', ...raw }, { baseDir: CORPUS, env: base, envName })
  assert.deepEqual(spec({ filter_env: true, env: { A: '1' } }).env, { A: '1' })
  assert.deepEqual(spec({ filter_env: ['AWS_', 'npm_'] }).env, { PATH: '/bin', KEEP: '1' })
  assert.deepEqual(spec({ filter_env: 'AWS_' }).env, { PATH: '/bin', npm_config_cache: 'y', KEEP: '1' })
  assert.equal(spec({ filter_env: false }).env.AWS_SECRET, 'x')
  assert.equal(spec({ port: 3000, env: { PORT: 1 } }).env.PORT, '3000', 'port over env')
  assert.equal(spec({ port: '3000', env_production: { PORT: 80 } }, 'production').env.PORT, '80', 'env_<name> over port')
  assert.equal(spec({ env: { LIST: [1, 2], OBJ: { a: 1 }, N: 5, B: false } }).env.LIST, '[1,2]')
  assert.equal(spec({ env: { OBJ: { a: 1 } } }).env.OBJ, '{"a":1}')
  assert.throws(() => spec({ port: 70000 }), { message: /`port` to be at most 65535/ })
})

test('values PM2 tolerates: digit strings, log_date_format false, NULL and /dev/null, disable_logs', () => {
  const spec = app({ kill_timeout: '3000', max_memory_restart: '314572800', min_uptime: '2000', listen_timeout: 5000 })
  assert.deepEqual([spec.killTimeout, spec.maxMemoryRestart, spec.minUptime, spec.listenTimeout], [3000, 314572800, 2000, 5000])
  assert.equal(app({ log_date_format: false }).logs.dateFormat, null)
  assert.deepEqual([app({ out_file: 'NULL', error_file: '/dev/null' }).logs.outFile, app({ error_file: 'NULL' }).logs.errorFile], ['/dev/null', '/dev/null'])
  assert.equal(app({ log_file: 'NULL' }).logs.logFile, null)
  const quiet = app({ disable_logs: true, out_file: 'out.log', log_file: true })
  assert.deepEqual([quiet.logs.outFile, quiet.logs.errorFile, quiet.logs.logFile], ['/dev/null', '/dev/null', null])
  assert.deepEqual(checkSpec(quiet), [])
})

test('autostart, force, treekill, kill_retry_time, source_map_support, pid_file reach the spec', () => {
  const spec = app({ autostart: false, force: true, treekill: false, kill_retry_time: '250ms', source_map_support: true, pid_file: 'run/app.pid' })
  assert.deepEqual([spec.autostart, spec.force, spec.treekill, spec.killRetryTime, spec.sourceMapSupport, spec.pidFile],
    [false, true, false, 250, true, path.join(CORPUS, 'run', 'app.pid')])
  assert.equal(app({ source_map_support: true, disable_source_map_support: true }).sourceMapSupport, false)
  assert.ok(nodeExecArgv(spec).includes('--enable-source-maps'))
  assert.ok(!nodeExecArgv(app({})).includes('--enable-source-maps'))
  assert.equal(nodeExecArgv(app({ source_map_support: true, node_args: '--enable-source-maps' })).filter((a) => a === '--enable-source-maps').length, 1)
  assert.throws(() => app({ kill_retry_time: 1 }), { message: /`kill_retry_time` to be at least 10ms/ })
})

test('watch_options: ignored adds to ignore_watch, the rest is named in one notice', () => {
  const notices = []
  const spec = app({ name: 'w', ignore_watch: ['a'], watch_options: { ignored: ['b', /c/], usePolling: true, interval: 100 } }, { notices })
  assert.deepEqual(spec.ignoreWatch, ['a', 'b'])
  assert.equal(notices.length, 1)
  assert.match(notices[0].message, /ignored \(other than strings\), usePolling, interval do not apply/)
  assert.deepEqual(app({ watch_options: { ignored: 'tmp' } }, { notices: [] }).ignoreWatch, ['tmp'])
})

test('PM2 keys xpm does not act on: one notice each per file, naming the apps; quiet when they ask for nothing', async () => {
  const dir = tmp()
  fs.writeFileSync(path.join(dir, 'a.js'), '')
  const file = path.join(dir, 'ecosystem.config.js')
  fs.writeFileSync(file, `module.exports = {
    apps: [
      { name: 'a', script: 'a.js', vizion: true, pmx: false, windowsHide: true, automation: false, trace: true },
      { name: 'b', script: 'a.js', vizion: true, disable_trace: true, post_update: ['npm i'] }
    ],
    deploy: { production: { user: 'x' } }
  }`)
  const { notices } = await resolveStart({ target: file, env })
  // the deploy section is `xpm deploy`'s: no notice
  assert.deepEqual(notices.map((n) => n.split(':')[0]), ['`vizion` in apps "a", "b"', '`trace` in app "a"', '`post_update` in app "b"'])
})

test('file shapes PM2 reads: one app object, apps as an object, { pm2: [...] }; a typo at the top stays an error', async () => {
  const dir = tmp()
  const write = (name, value) => { const f = path.join(dir, name); fs.writeFileSync(f, JSON.stringify(value)); return f }
  assert.equal((await loadEcosystem(write('one.json', { name: 'x', script: 'app.js' }))).apps.length, 1)
  assert.deepEqual((await loadEcosystem(write('cmd.json', { cmd: 'app.js' }))).apps, [{ cmd: 'app.js' }])
  assert.equal((await loadEcosystem(write('obj.json', { apps: { name: 'x', script: 'app.js' } }))).apps.length, 1)
  assert.equal((await loadEcosystem(write('pm2.json', { pm2: [{ script: 'a.js' }, { script: 'b.js' }] }))).apps.length, 2)
  const withDeploy = await loadEcosystem(write('deploy.json', { apps: [{ script: 'a.js' }], deploy: {} }))
  assert.deepEqual(withDeploy.notices.map((n) => n.key), [])
  await assert.rejects(loadEcosystem(write('typo.json', { aps: [{ script: 'a.js' }] })), { code: 'XPM_ERR_CONFIG_UNKNOWN_KEY', message: /did you mean "apps"\?/ })
  await assert.rejects(loadEcosystem(write('nothing.json', { name: 'x' })), { code: 'XPM_ERR_CONFIG_UNKNOWN_KEY' })
})

test('interpreters by extension and from the file itself, each with the reason', () => {
  const dir = tmp()
  const file = (name, text = '', mode = 0o644) => { const f = path.join(dir, name); fs.writeFileSync(f, text, { mode }); return f }
  const pathEnv = { PATH: process.env.PATH }
  for (const [ext, expected] of [['.js', 'node'], ['.cjs', 'node'], ['.mjs', 'node'], ['.sh', 'bash'], ['.rb', 'ruby'], ['.php', 'php'], ['.pl', 'perl'], ['.coffee', 'coffee'], ['.ls', 'lsc']]) {
    assert.equal(inferInterpreter(file(`a${ext}`), pathEnv).interpreter, expected, ext)
  }
  assert.match(inferInterpreter(file('a.py'), pathEnv).interpreter, /^python3?$/)
  const ts = inferInterpreter(file('a.ts'), { PATH: '' })
  if (process.features?.typescript) assert.equal(ts.interpreter, 'node')
  else assert.equal(ts.interpreter, null, 'no runner on an empty PATH')
  assert.equal(inferInterpreter(file('a.tsx'), { PATH: '' }).interpreter, null)
  const node = inferInterpreter(file('tool', '#!/usr/bin/env node\n', 0o755))
  assert.equal(node.interpreter, 'node')
  assert.match(node.why, /first line of .*tool names node/)
  assert.deepEqual(inferInterpreter(file('flagged', '#!/usr/bin/env -S node --max-old-space-size=64\n', 0o755)).shebangArgs, ['--max-old-space-size=64'])
  const self = inferInterpreter(file('script', '#!/bin/sh\n', 0o755))
  assert.equal(self.interpreter, 'none')
  assert.match(self.why, /is executable and its first line does not name node/)
  assert.equal(inferInterpreter(file('plain', 'console.log(1)\n')).interpreter, 'node', 'not executable: under Node, as in PM2')
  // the reason is in the message when the inference rules a mode out
  assert.throws(() => normalizeApp({ name: 'x', script: path.join(dir, 'script'), exec_mode: 'cluster' }, { baseDir: dir, env }), {
    message: /Expected `exec_mode` to be "fork" for interpreter "none" \(inferred: .*script is executable and its first line does not name node, so it runs as itself; set interpreter: "node" to run it under Node\)/
  })
  assert.throws(() => normalizeApp({ name: 'x', script: file('b.tsx') }, { baseDir: dir, env: { PATH: '' } }), { code: 'XPM_ERR_CONFIG_INVALID', message: /cannot tell how to run .*b\.tsx.*tsx, ts-node or bun/ })
})

test('shebangs, node command lines and Node binaries', () => {
  assert.deepEqual(nodeShebang('#!/usr/bin/env node'), { nodeArgs: [] })
  assert.deepEqual(nodeShebang('#!/usr/local/bin/node --trace-warnings'), { nodeArgs: ['--trace-warnings'] })
  assert.deepEqual(nodeShebang('#!/usr/bin/env NODE_ENV=production node'), { nodeArgs: [] })
  assert.equal(nodeShebang('#!/bin/bash'), null)
  assert.equal(nodeShebang('#!/usr/bin/env python3'), null)
  assert.equal(nodeShebang('const x = 1'), null)
  assert.deepEqual(nodeCommandLine(['-r', 'dotenv/config', '--inspect', 'app.js', '--port', '1']), { nodeArgs: ['-r', 'dotenv/config', '--inspect'], script: 'app.js', args: ['--port', '1'] })
  assert.equal(nodeCommandLine(['-e', 'console.log(1)']), null)
  for (const yes of ['node', 'nodejs', '/usr/local/bin/node', 'node18', 'node-v20.1.0', '/x/node.exe']) assert.ok(isNodeRuntime(yes), yes)
  for (const no of ['none', 'python3', 'bun', '/home/u/nodes/bin/python', 'nodemon']) assert.ok(!isNodeRuntime(no), no)
  assert.equal(app({ interpreter: 'nodejs' }).interpreter, 'node')
  assert.equal(app({ interpreter: process.execPath }).interpreter, 'node')
  const other = app({ interpreter: '/opt/node18/bin/node' })
  assert.deepEqual([other.interpreter, other.execMode, other.metrics], ['/opt/node18/bin/node', 'fork', true])
  assert.deepEqual(checkSpec(JSON.parse(JSON.stringify(other))), [])
  const notices = []
  const clustered = app({ name: 'c', interpreter: '/opt/node18/bin/node', exec_mode: 'cluster' }, { notices })
  assert.equal(clustered.interpreter, 'node')
  assert.match(notices[0].message, /cluster workers run on xpm's Node/)
})

test('command lines: the first word is the program, the rest its arguments; the name is the program\'s', async () => {
  const spec = app({ script: 'sleep 300', args: ['x'] })
  assert.deepEqual([path.basename(spec.script), spec.interpreter, spec.args, spec.name], ['sleep', 'none', ['300', 'x'], 'sleep'])
  assert.throws(() => app({ name: 'd', script: 'no-such-program-xyz run app.ts' }), {
    code: 'XPM_ERR_SCRIPT_NOT_FOUND', message: /script "no-such-program-xyz run app\.ts" in app "d": no file of that name, and its first word "no-such-program-xyz" is neither a file in .* nor a program on PATH/
  })
  const { specs, kind } = await resolveStart({ target: 'sleep 60', cwd: CORPUS, env })
  assert.equal(kind, 'script')
  assert.deepEqual([specs[0].name, specs[0].args], ['sleep', ['60']])
  assert.equal((await resolveStart({ target: 'some app name', cwd: CORPUS, env })).kind, 'name', 'not a program: an app name')
  // `pm2 start npm --name web -- start`: a program on PATH with arguments or a name is a script
  const npm = await resolveStart({ target: 'sleep', flags: { name: 'nap' }, scriptArgs: ['30'], cwd: CORPUS, env })
  assert.deepEqual([npm.kind, npm.specs[0].name, npm.specs[0].args], ['script', 'nap', ['30']])
  assert.equal((await resolveStart({ target: 'sleep', cwd: CORPUS, env })).kind, 'name', 'alone, a word is an app name')
})

// (the real getent: test/integration/config-load.test.js)
test('uid and gid: names from /etc/passwd and /etc/group, then getent; the user\'s own group, root needed for another user', () => {
  const dir = tmp()
  const passwd = path.join(dir, 'passwd')
  const group = path.join(dir, 'group')
  fs.writeFileSync(passwd, 'root:x:0:0:root:/root:/bin/sh\ndeploy:x:1500:1600::/home/deploy:/bin/sh\n')
  fs.writeFileSync(group, 'root:x:0:\nwww:x:33:\ndeploy:x:1600:\n')
  const files = { passwd, group }
  assert.deepEqual(resolveUser({ uid: 'deploy', gid: null }, files), { uid: 1500, gid: 1600 })
  assert.deepEqual(resolveUser({ uid: 'deploy', gid: 'www' }, files), { uid: 1500, gid: 33 })
  assert.deepEqual(resolveUser({ uid: 1500, gid: null }, files), { uid: 1500, gid: 1600 })
  assert.deepEqual(resolveUser({ uid: null, gid: 33 }, files), { uid: null, gid: 33 })
  assert.throws(() => resolveUser({ uid: 'nobody-here', gid: null }, { ...files, lookup: () => null }), { message: /`uid` to be a user of this machine, got "nobody-here"/ })
  assert.throws(() => resolveUser({ uid: 4242, gid: null }, { ...files, lookup: () => null }), { message: /give `gid` too/ })
  // names the files do not hold come from the system's user database (getent: LDAP, SSSD…)
  const ldap = (db, key) => db === 'passwd' && key === 'alice' ? ['alice', 'x', '2001', '2002', '', '/home/alice', '/bin/sh'] : db === 'group' && key === 'staff' ? ['staff', 'x', '50', ''] : null
  assert.deepEqual(resolveUser({ uid: 'alice', gid: null }, { ...files, lookup: ldap }), { uid: 2001, gid: 2002 })
  assert.deepEqual(resolveUser({ uid: 'alice', gid: 'staff' }, { ...files, lookup: ldap }), { uid: 2001, gid: 50 })
  assert.equal(privilegeProblem({ uid: process.getuid(), gid: process.getgid() }), null, 'the daemon\'s own ids are always fine')
  const other = privilegeProblem({ uid: process.getuid() + 1, gid: null })
  if (process.getuid() === 0) assert.equal(other, null)
  else assert.match(other, /needs the xpm daemon to run as root/)
  const spec = app({ uid: process.getuid(), gid: process.getgid() })
  assert.deepEqual([spec.uid, spec.gid], [process.getuid(), process.getgid()])
  const wire = JSON.parse(JSON.stringify({ ...spec, uid: process.getuid() + 1 }))
  assert.equal(checkSpec(wire).some((p) => /needs the xpm daemon to run as root/.test(p)), process.getuid() !== 0)
  assert.ok(checkSpec({ ...spec, uid: -1 }).some((p) => p.startsWith('uid (uid) should be at least 0') || p.startsWith('uid should be')))
})

test('launch options: pid file paths, treekill: false has no tree, kill_retry_time polls, pid file written and removed', async () => {
  assert.equal(pidFilePath({ pidFile: '/run/api.pid', instances: 1 }, 0), '/run/api-0.pid', 'as PM2 (cli-actions-1: -p echo.pid writes echo-0.pid)')
  assert.equal(pidFilePath({ pidFile: '/run/api.pid', instances: 3 }, 2), '/run/api-2.pid')
  assert.equal(pidFilePath({ pidFile: '/run/api', instances: 2 }, 1), '/run/api-1')
  assert.equal(pidFilePath({ pidFile: null, instances: 2 }, 1), null)
  assert.equal(pidFilePath({ name: 'api', pidFile: null }, 1, '/home/u/.xpm/pids'), '/home/u/.xpm/pids/api-1.pid', 'as PM2, a pid file by default in the daemon\'s folder')
  assert.equal(pidFilePath({ name: 'api', pidFile: null }, 1), null, 'no folder given: none')

  const handle = new ProcessHandle({ child: { pid: process.pid }, options: handleOptions({ treekill: false, killRetryTime: 250 }) })
  assert.deepEqual([handle.tag, handle.treekill, handle.pollMs, handle.processTree()], [null, false, 250, null])
  const shared = { launches: new Set(), home: () => '/home/u/.xpm' }
  const untracked = launchEnv({ name: 'api', treekill: false }, {}, 0, shared)
  assert.deepEqual([untracked.tag, untracked.env.XPM_UNTRACKED, shared.launches.size], [null, '1', 0], 'treekill: false: a launch nothing sweeps, not tracked')
  assert.equal(shared.launches.has(launchEnv({ name: 'api' }, {}, 0, shared).tag), true)

  const dir = tmp()
  const file = path.join(dir, 'app-0.pid')
  const h = new ProcessHandle({ child: { pid: 4242 }, tag: 'y', options: handleOptions({ pidFile: path.join(dir, 'app.pid'), instances: 1 }) })
  writePidFile(h)
  h.emit('online')
  const { waitFor } = require('../helpers/wait')
  await waitFor(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8') === '4242\n', { timeout: 2000, message: 'the pid file' })
  h.emit('exit', { code: 0 })
  await waitFor(() => !fs.existsSync(file), { timeout: 2000, message: 'the pid file removed' })
})

test('the daemon completes a spec of an earlier xpm with the table\'s defaults, and checks the new fields', () => {
  const spec = JSON.parse(JSON.stringify(app({ name: 'x' })))
  for (const key of ['namespace', 'instanceVar', 'autostart', 'treekill', 'uid', 'gid', 'pidFile']) delete spec[key]
  validateSpec(spec)
  assert.deepEqual([spec.namespace, spec.instanceVar, spec.autostart, spec.treekill, spec.uid, spec.pidFile], ['default', 'NODE_APP_INSTANCE', true, true, null, null])
  const bad = { ...spec, instanceVar: 'A=B', pidFile: 'relative.pid', namespace: 'all', killRetryTime: 5 }
  const problems = checkSpec(bad)
  for (const field of ['instanceVar', 'pidFile', 'namespace', 'killRetryTime']) assert.ok(problems.some((p) => p.startsWith(field)), field)
})

test('PM2 start flags -c, -p, -x and --no-automation map to their keys', () => {
  const { parseFlags } = require('../../lib/shared/config/validate')
  const values = parseFlags({ cronRestart: '0 3 * * *', pid: 'app.pid', executeCommand: true, automation: false }, { cwd: '/srv' })
  assert.equal(values.cron_restart, '0 3 * * *')
  assert.equal(values.pid_file, '/srv/app.pid')
  assert.equal(values.execute_command, true)
  assert.equal(values.automation, false)
})

test('log files per instance as PM2: cluster mode or several instances unless merge_logs; a single fork is merged', () => {
  assert.equal(app({}).logs.perInstance, false, 'one fork: one file pair')
  assert.equal(app({ instances: 4 }).logs.perInstance, true)
  assert.equal(app({ exec_mode: 'cluster' }).logs.perInstance, true)
  assert.equal(app({ instances: 4, merge_logs: true }).logs.perInstance, false)
  assert.equal(app({ combine_logs: true, exec_mode: 'cluster' }).logs.perInstance, false)
  assert.equal(app({ merge_logs: false }).logs.perInstance, true)
})

test('a command line with shell syntax runs under bash -c, as PM2 runs it; plain words run the program itself', async () => {
  const spec = app({ script: 'cc hello.c; ./a.out' })
  assert.match(spec.script, /\/(ba)?sh$/)
  assert.deepEqual([spec.args, spec.interpreter, spec.name], [['-c', 'cc hello.c; ./a.out'], 'none', 'cc'])
  const both = app({ script: 'npm run build && npm run start', wait_ready: true })
  assert.deepEqual(both.args, ['-c', 'npm run build && npm run start'])
  const plain = app({ script: 'npm run start' })
  assert.match(plain.script, /\/npm$/)
  assert.deepEqual(plain.args.slice(0, 2), ['run', 'start'])
  const cli = await resolveStart({ target: 'cc hello.c; ./a.out', cwd: CORPUS, env })
  assert.equal(cli.kind, 'script')
  assert.deepEqual(cli.specs[0].args, ['-c', 'cc hello.c; ./a.out'])
})

test('source maps as PM2: on when the script has a .map file, off with disable_source_map_support, else off', () => {
  const dir = tmp()
  fs.writeFileSync(path.join(dir, 'main.js'), '')
  fs.writeFileSync(path.join(dir, 'main.js.map'), '{}')
  fs.writeFileSync(path.join(dir, 'plain.js'), '')
  const at = (raw) => normalizeApp(raw, { baseDir: dir, env, cpus: 4 })
  assert.equal(at({ script: 'main.js' }).sourceMapSupport, true)
  assert.equal(at({ script: 'main.js', disable_source_map_support: true }).sourceMapSupport, false)
  assert.equal(at({ script: 'plain.js' }).sourceMapSupport, false)
  assert.equal(at({ script: 'plain.js', source_map_support: true }).sourceMapSupport, true)
})
