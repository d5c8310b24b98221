'use strict'

// The pure parts of PM2 compatibility (issue 17): target resolution and id reuse on the real
// Supervisor with a fake launcher, regex targets, --sort, -m, jlist --pm2, options changed on
// restart, the stderr marker of `xpm logs`, a date format without --time.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { Supervisor } = require('../../daemon/supervisor')
const { scriptMatches } = require('../../daemon/targets')
const { fakeLauncher, fakeSpec } = require('../helpers/fake-launcher')
const { expandTargets, wire, regexOf } = require('../../lib/cli/targets')
const { renderMiniList, sortRows, parseSort } = require('../../lib/cli/render-list')
const { toPm2, PM2_FIELDS } = require('../../lib/cli/render-pm2')
const { applyChanges, changesOf } = require('../../lib/cli/spec-changes')
const { formatLine } = require('../../lib/shared/logs/format-line')
const { createEntryFormatter } = require('../../daemon/logs/format-entry')
const { isFieldList } = require('../../lib/shared/process-fields')
const { homePaths } = require('../../lib/shared/paths')

const ids = (instances) => instances.map((i) => i.id)

test('targets: name, id, all, namespace, script path or file name, several at once; a miss names the target', async () => {
  const sup = new Supervisor({ launcher: fakeLauncher().launcherFor })
  await sup.start([
    fakeSpec('api', { instances: 2, namespace: 'back', script: '/srv/app/server.js' }),
    fakeSpec('worker', { namespace: 'back', script: '/srv/app/worker.js' }),
    fakeSpec('web', { script: '/srv/web/server.js' })
  ])
  assert.deepEqual(ids(sup.resolve('api')), [0, 1])
  assert.deepEqual(ids(sup.resolve('3')), [3])
  assert.deepEqual(ids(sup.resolve('all')), [0, 1, 2, 3])
  assert.deepEqual(ids(sup.resolve('back')), [0, 1, 2])
  assert.deepEqual(ids(sup.resolve('default')), [3], 'apps without a namespace are in "default"')
  assert.deepEqual(ids(sup.resolve('worker.js')), [2])
  assert.deepEqual(ids(sup.resolve('server.js')), [0, 1, 3], 'a file name matches every app of that script name')
  assert.deepEqual(ids(sup.resolve('/srv/web/server.js')), [3])
  assert.deepEqual(ids(sup.resolve('web/server.js')), [3])
  assert.deepEqual(ids(sup.resolve(['web', '1', 'api'])), [0, 1, 3], 'the union, in id order, once each')
  assert.throws(() => sup.resolve(['web', 'ghost']), { code: 'XPM_ERR_APP_NOT_FOUND', message: /"ghost"/ })
  assert.equal(scriptMatches('/srv/a.js', '../a.js'), false)
  // a name wins over a namespace of the same spelling
  await sup.start([fakeSpec('back2', { namespace: 'api' })])
  assert.deepEqual(sup.resolve('api').map((i) => i.name), ['api', 'api'])
  assert.deepEqual(sup.appsOf('back').map((a) => a.name), ['api', 'worker'])
})

test('"all" with no process matches nothing for commands that act, and shows nothing', async () => {
  const sup = new Supervisor({ launcher: fakeLauncher().launcherFor })
  assert.throws(() => sup.resolve('all'), { code: 'XPM_ERR_APP_NOT_FOUND' })
  for (const method of ['stop', 'restart', 'delete', 'reload', 'startTarget']) {
    await assert.rejects(sup[method]('all'), { code: 'XPM_ERR_APP_NOT_FOUND' }, method)
  }
  assert.throws(() => sup.reset('all'), { code: 'XPM_ERR_APP_NOT_FOUND' })
  assert.deepEqual(sup.show('all'), [])
})

test('ids start again from 0 once no instance is left, never while a removed one still runs', async () => {
  const { launcherFor } = fakeLauncher()
  const sup = new Supervisor({ launcher: launcherFor })
  await sup.start([fakeSpec('a', { instances: 3 }), fakeSpec('b')])
  assert.deepEqual(sup.list().map((p) => p.id), [0, 1, 2, 3])
  await sup.delete('b')
  await sup.start([fakeSpec('c')])
  assert.deepEqual(sup.list().map((p) => p.id), [0, 1, 2, 4], 'apps remain: the next id, not a freed one')
  // a scale-down removes instances before they are stopped: their ids stay taken meanwhile
  const scaling = sup.scale('a', '1')
  await new Promise(setImmediate)
  const [added] = await sup.start([fakeSpec('d')])
  assert.ok(![1, 2].includes(added.ids[0]), `id ${added.ids[0]} of a process still stopping`)
  await scaling
  await sup.delete('all')
  assert.deepEqual(sup.list(), [])
  await sup.start([fakeSpec('e', { instances: 2 })])
  assert.deepEqual(sup.list().map((p) => p.id), [0, 1], 'after delete all, as in PM2')
})

test('restart with a spec: the app takes it, counts a restart; rename keeps the ids', async () => {
  const sup = new Supervisor({ launcher: fakeLauncher().launcherFor })
  await sup.start([fakeSpec('api', { instances: 2 }), fakeSpec('other')])
  const res = await sup.restart('api', { specs: [fakeSpec('api', { instances: 2, nodeArgs: ['--max-old-space-size=64'] })] })
  assert.deepEqual(res.ids, [0, 1])
  assert.deepEqual(sup.show('api').map((p) => [p.restarts, p.spec.nodeArgs]), [[1, ['--max-old-space-size=64']], [1, ['--max-old-space-size=64']]])
  const renamed = await sup.rename('api', fakeSpec('billing', { instances: 2 }))
  assert.equal(renamed.renamedFrom, 'api')
  assert.deepEqual(sup.list().map((p) => [p.id, p.name, p.status]), [[0, 'billing', 'online'], [1, 'billing', 'online'], [2, 'other', 'online']])
  await assert.rejects(sup.rename('billing', fakeSpec('other')), { code: 'XPM_ERR_APP_EXISTS' })
  await assert.rejects(sup.rename('all', fakeSpec('x')), { code: 'XPM_ERR_BAD_ARGUMENT' })
})

test('a job that exits 0 before it was ready and is not restarted has finished: not a failure', async () => {
  const fake = fakeLauncher()
  const launcher = fake.launcherFor()
  const exiting = { ...launcher, launch (spec, env) { const h = launcher.launch(spec, env); h.markOnline = () => h.markExited(spec.exitCode, null); return h } }
  const sup = new Supervisor({ launcher: () => exiting })
  const [ok] = await sup.start([fakeSpec('job', { autorestart: false, exitCode: 0, waitReady: true })])
  assert.deepEqual([ok.failures, ok.finished], [[], [0]])
  assert.equal(sup.list()[0].status, 'stopped')
  const [bad] = await sup.start([fakeSpec('bad', { autorestart: false, exitCode: 2, waitReady: true })])
  assert.equal(bad.failures.length, 1)
  assert.deepEqual(bad.finished, [])
})

test('regex targets are expanded by the CLI into names; a bad or empty match is an error', async () => {
  const client = { request: async () => [{ name: 'api-1' }, { name: 'api-1' }, { name: 'api-2' }, { name: 'web' }] }
  assert.deepEqual(await expandTargets(client, ['/^api-/', 'web', '3']), ['api-1', 'api-2', 'web', '3'])
  assert.deepEqual(await expandTargets(client, ['/API/i']), ['api-1', 'api-2'])
  assert.deepEqual(await expandTargets(client, ['./srv/a.js'], { cwd: '/home/u' }), ['/home/u/srv/a.js'])
  await assert.rejects(expandTargets(client, ['/^db/']), { code: 'XPM_ERR_APP_NOT_FOUND' })
  assert.throws(() => regexOf('/(/'), { code: 'XPM_ERR_BAD_ARGUMENT' })
  assert.equal(regexOf('/usr/'), null, 'an existing folder is a path, not a pattern')
  assert.equal(wire(['a']), 'a')
  assert.deepEqual(wire(['a', 'b']), ['a', 'b'])
})

const rows = [
  { id: 0, name: 'web', namespace: 'default', mode: 'fork', pid: 11, uptime: 5000, restarts: 2, status: 'online', cpu: 3, memory: 50 * 1024 * 1024 },
  { id: 1, name: 'api', namespace: 'back', mode: 'cluster', pid: 0, uptime: 0, restarts: 0, status: 'stopped', cpu: 0, memory: 0 },
  { id: 2, name: 'api', namespace: 'back', mode: 'cluster', pid: 13, uptime: 9000, restarts: 7, status: 'online', cpu: 9, memory: 80 * 1024 * 1024 }
]

test('ls --sort <field>[:asc|desc], and a bad field suggests the nearest', () => {
  assert.deepEqual(sortRows(rows, 'name').map((r) => r.id), [1, 2, 0])
  assert.deepEqual(sortRows(rows, 'name:desc').map((r) => r.id), [0, 1, 2])
  assert.deepEqual(sortRows(rows, 'memory:desc').map((r) => r.id), [2, 0, 1])
  assert.deepEqual(sortRows(rows, 'restarts').map((r) => r.id), [1, 0, 2])
  assert.deepEqual(sortRows(rows, undefined), rows)
  assert.throws(() => parseSort('memroy'), { code: 'XPM_ERR_BAD_ARGUMENT', message: /did you mean "memory"/ })
  assert.throws(() => parseSort('name:up'), { code: 'XPM_ERR_BAD_ARGUMENT' })
})

test('-m: one plain line per process, the namespace column when an app has one', () => {
  const text = renderMiniList(rows)
  const lines = text.trimEnd().split('\n')
  assert.equal(lines.length, 4)
  assert.deepEqual(lines[0].split(/\s+/), ['id', 'name', 'namespace', 'mode', 'pid', 'uptime', 'restarts', 'status', 'cpu', 'mem'])
  assert.deepEqual(lines[3].split(/\s+/), ['2', 'api', 'back', 'cluster', '13', '9s', '7', 'online', '9%', '80.0MB'])
  assert.ok(!/[│┌└]/.test(text) && !text.includes('\u001b'))
  assert.ok(!renderMiniList([rows[0]]).includes('namespace'))
})

test('jlist --pm2: the fields monitoring scripts read, in PM2\'s shape', () => {
  assert.ok(isFieldList(PM2_FIELDS))
  const p = toPm2({ ...rows[2], instance: 1, createdAt: 1000, logs: { out: '/l/api-out.log', err: '/l/api-error.log', combined: null }, spec: { script: '/srv/api.js', cwd: '/srv', instances: 2, watch: ['/srv'] } }, { now: 100000 })
  assert.deepEqual([p.name, p.pm_id, p.pid, p.monit], ['api', 2, 13, { cpu: 9, memory: 80 * 1024 * 1024 }])
  const e = p.pm2_env
  assert.deepEqual([e.status, e.restart_time, e.pm_uptime, e.exec_mode, e.pm_out_log_path, e.pm_err_log_path, e.namespace, e.NODE_APP_INSTANCE, e.instances, e.watch],
    ['online', 7, 91000, 'cluster_mode', '/l/api-out.log', '/l/api-error.log', 'back', 1, 2, true])
  assert.equal(toPm2({ ...rows[0], createdAt: 5 }).pm2_env.exec_mode, 'fork_mode')
  assert.equal('pm_log_path' in e, false, 'no combined log: no pm_log_path, as PM2')
  assert.equal(toPm2({ ...rows[1], createdAt: 5 }).pm2_env.pm_uptime, 5, 'not online: the creation time')
  assert.equal(toPm2({ ...rows[1], createdAt: 5, spec: { watch: ['/srv'] } }).pm2_env.watch, false, 'after stop, watch: false, as PM2 shows it')
})

test('options changed on restart: parsed as start parses them, set on the spec', () => {
  const spec = { name: 'api', cwd: '/srv', nodeArgs: [], watch: false, cronRestart: null, env: {}, logs: {} }
  const changes = changesOf({ nodeArgs: '--inspect --max-old-space-size=64', watch: true, cron: '0 3 * * *', maxMemoryRestart: '300M' }, { cwd: '/srv' })
  const out = applyChanges(spec, changes)
  assert.deepEqual(out.nodeArgs, ['--inspect', '--max-old-space-size=64'])
  assert.deepEqual(out.watch, ['/srv'])
  assert.equal(out.cronRestart, '0 3 * * *')
  assert.equal(out.maxMemoryRestart, 300 * 1024 * 1024)
  assert.deepEqual(spec.nodeArgs, [], 'the original is untouched')
  assert.equal(applyChanges(out, changesOf({ watch: false }, { cwd: '/srv' })).watch, false)
  assert.equal(applyChanges(out, changesOf({ watch: true }, { cwd: '/srv' })).watch, false, 'a bare --watch toggles, as PM2')
  assert.deepEqual(applyChanges(out, changesOf({ watch: ['/srv/lib'] }, { cwd: '/srv' })).watch, ['/srv/lib'], 'paths set')
  assert.equal(changesOf({ json: true, updateEnv: true }), null)
  const cleared = applyChanges(out, changesOf({ nodeArgs: 'null' }))
  assert.equal(cleared.nodeArgs, null, 'PM2: --node-args=null takes the flags away')
  assert.equal('node_args' in toPm2({ ...rows[0], spec: cleared }).pm2_env, false, 'and PM2 shows no node_args then')
  assert.throws(() => changesOf({ cronRestart: 'every day' }, { cwd: '/' }), { code: 'XPM_ERR_CONFIG_INVALID' })
})

test('xpm logs marks stderr lines without colours; a date format alone prefixes the date', () => {
  const line = { app: 'api', id: 0, stream: 'err', time: 0, line: 'boom' }
  assert.equal(formatLine(line), '0|api|err| boom')
  assert.equal(formatLine({ ...line, stream: 'out' }), '0|api| boom')
  assert.ok(formatLine(line, { color: true }).startsWith('\u001b[31m0|api| '))
  assert.equal(formatLine(line, { format: true }), 'app=api id=0 type=err message=boom')
  assert.equal(formatLine(line, { timestamp: () => 'T' }), '0|api|err| T boom')
  assert.equal(createEntryFormatter({ dateFormat: '[at] YYYY' }).line('hi', Date.UTC(2026, 5, 1, 12)), 'at 2026: hi')
})

test('PM2_HOME stands in for XPM_HOME, in a folder of its own', () => {
  const saved = { XPM_HOME: process.env.XPM_HOME, PM2_HOME: process.env.PM2_HOME }
  try {
    delete process.env.XPM_HOME
    process.env.PM2_HOME = '/srv/app/.pm2'
    assert.equal(homePaths().home, '/srv/app/.pm2/xpm')
    process.env.XPM_HOME = '/srv/x'
    assert.equal(homePaths().home, '/srv/x', 'XPM_HOME is read first')
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
})

// Every flag of PM2's CLI and of pm2-runtime (lib/cli/pm2-flags.js) is accepted where PM2 takes
// it: parsed by the real commander program, then read as xpm reads it. Never "unknown option".
const { buildProgram } = require('../../lib/cli/main')
const { PM2_FLAGS, parseFlag, applyPm2Flags, stripForeignFlags, renderFlagTable } = require('../../lib/cli/pm2-flags')
const SAMPLE = {
  '--name': 'api',
  '--interpreter': 'node',
  '--interpreter-args': '--max-old-space-size=64',
  '--node-args': '--max-old-space-size=64',
  '--output': '/tmp/o.log',
  '--error': '/tmp/e.log',
  '--log-type': 'json',
  '--log-date-format': 'YYYY',
  '--env': 'production',
  '--instances': '2',
  '--parallel': '2',
  '--pid': '/tmp/p.pid',
  '--kill-timeout': '3000',
  '--listen-timeout': '3000',
  '--max-memory-restart': '200M',
  '--restart-delay': '100',
  '--exp-backoff-restart-delay': '100',
  '--user': 'root',
  '--uid': '0',
  '--gid': '0',
  '--namespace': 'ns',
  '--cwd': '/tmp',
  '--hp': '/root',
  '--service-name': 'web',
  '--cron': '0 3 * * *',
  '--cron-restart': '0 3 * * *',
  '--only': 'api',
  '--ignore-watch': 'tmp',
  '--watch-delay': '4',
  '--stop-exit-codes': '0',
  '--sort': 'name',
  '--max-restarts': '5',
  '--ext': 'js,json',
  '--delay': '0',
  '--lines': '5'
}

async function parseWith (argv, { runtime = false } = {}) {
  let seen = null
  if (runtime) {
    const { buildProgram: runtimeProgram } = require('../../lib/cli/runtime')
    const program = runtimeProgram()
    program.action((target, opts) => { seen = opts })
    await program.parseAsync(argv, { from: 'user' })
    return seen
  }
  const program = buildProgram(['node', 'xpm', argv[0]])
  const command = program.commands.find((c) => c.name() === argv[0] || c.aliases().includes(argv[0]))
  command.action((...args) => { seen = args.at(-2) })
  const full = stripForeignFlags(['node', 'xpm', ...argv], command, program)
  await program.parseAsync(full)
  return seen
}

const withValue = (entry) => {
  const f = parseFlag(entry.flag)
  return f.value && SAMPLE[f.long] !== undefined ? [f.long, SAMPLE[f.long]] : [f.long]
}

test('every PM2 start flag is accepted by `xpm start` and read into a spec without error', async () => {
  const { parseFlags } = require('../../lib/shared/config/validate')
  for (const entry of PM2_FLAGS) {
    if (entry.runtime || (entry.kind === 'command' && !entry.on.includes('start'))) continue
    if (entry.flag === '--no-daemon' || entry.flag === '--attach') continue // run other code paths: integration tests
    const args = withValue(entry)
    const opts = await parseWith(['start', 'app.js', ...args])
    assert.ok(opts, `${entry.flag}: parsed`)
    const notices = []
    const read = applyPm2Flags(opts, { notice: (n) => notices.push(n) })
    parseFlags(read, { cwd: '/srv' })
    if (entry.kind === 'notice') assert.equal(notices.length, 1, `${entry.flag}: one notice`)
  }
  // short flags as PM2 spells them
  const opts = applyPm2Flags(await parseWith(['start', 'app.js', '-n', 'api', '-k', '3000', '-u', 'root', '-a', '-c', '0 3 * * *', '--interpreter-args', '--inspect']))
  const values = require('../../lib/shared/config/validate').parseFlags(opts, { cwd: '/srv' })
  assert.deepEqual([values.name, values.kill_timeout, values.uid, values.cron_restart, values.node_args, opts.updateEnv], ['api', 3000, 'root', '0 3 * * *', ['--inspect'], true])
  const more = require('../../lib/shared/config/validate').parseFlags(applyPm2Flags(await parseWith(['start', 'app.js', '--no-autostart', '--no-treekill', '--disable-source-map-support', '--watch-delay', '4', '--no-vizion', '--disable-logs'])), { cwd: '/srv' })
  assert.deepEqual([more.autostart, more.treekill, more.source_map_support, more.watch_delay, more.vizion, more.disable_logs], [false, false, false, 4000, false, true])
})

test('pm2-runtime\'s flags are accepted by xpm-runtime', async () => {
  for (const entry of PM2_FLAGS) {
    if (entry.kind === 'command' && !entry.on.includes('xpm-runtime') && !entry.on.includes('start')) continue
    if (['--no-daemon', '--attach', '-u --user <username>'].includes(entry.flag)) continue
    const opts = await parseWith(['app.js', ...withValue(entry)], { runtime: true })
    assert.ok(opts, entry.flag)
  }
})

test('a PM2 flag on a command that has no use for it is dropped with a notice; a typo still fails with a suggestion', async () => {
  const notices = []
  const program = buildProgram(['node', 'xpm', 'stop'])
  const stop = program.commands.find((c) => c.name() === 'stop')
  assert.deepEqual(stripForeignFlags(['node', 'xpm', 'stop', 'api', '-i', '4', '--no-autorestart', '--time'], stop, program, { notice: (n) => notices.push(n) }), ['node', 'xpm', 'stop', 'api'])
  assert.equal(notices.length, 3)
  // (reload takes --parallel for a rolling reload across hosts, and gives the notice itself without them: test/integration/fleet-rollout.test.js)
  const restart = buildProgram(['node', 'xpm', 'restart']).commands.find((c) => c.name() === 'restart')
  const n2 = []
  assert.deepEqual(stripForeignFlags(['node', 'xpm', 'restart', 'all', '--parallel', '2'], restart, program, { notice: (n) => n2.push(n) }), ['node', 'xpm', 'restart', 'all'])
  assert.match(n2[0], /--parallel: xpm restarts and reloads/)
  for (const cmd of [['startup', '-u', 'www', '--hp', '/home/www', '--service-name', 'web', '--wait-ip'], ['list', '--sort', 'name'], ['logs', '--format', '--raw']]) {
    assert.ok(await parseWith(cmd), cmd.join(' '))
  }
  await assert.rejects(parseWith(['start', 'app.js', '--no-autostrat']), (err) => {
    assert.match(err.message, /unknown option '--no-autostrat'/)
    return true
  })
})

test('the migration guide\'s flag table is the one lib/cli/pm2-flags.js renders', () => {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'migrating-from-pm2.md'), 'utf8')
  const m = /<!-- pm2-flags:begin[^>]*-->\n([\s\S]*?)\n<!-- pm2-flags:end -->/.exec(doc)
  assert.ok(m, 'docs/migrating-from-pm2.md has a pm2-flags table')
  assert.equal(m[1], renderFlagTable(), 'regenerate with: node scripts/render-pm2-flags.js --write')
})

test('the --help footer names the migration guide by a path that exists wherever xpm is installed', () => {
  const program = buildProgram(['node', 'xpm', '--help'])
  let out = ''
  program.configureOutput({ writeOut: (s) => { out += s }, writeErr: (s) => { out += s } })
  program.outputHelp()
  const file = /PM2 users: (\S+)/.exec(out)?.[1]
  assert.ok(file && path.isAbsolute(file), out)
  assert.ok(fs.existsSync(file), file)
})
