'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { planApply, specChanges, envChanges, deleteOrder, fileKey } = require('../../lib/cli/apply/plan')
const { renderPlan } = require('../../lib/cli/commands/apply')

const SHELL = { PATH: '/usr/bin', HOME: '/root', PWD: '/srv' }
// A normalized spec as the CLI builds it: the shell's environment under the file's env.
const spec = (name, extra = {}) => ({
  name,
  script: `/srv/${name}.js`,
  cwd: '/srv',
  args: [],
  instances: 1,
  execMode: 'fork',
  interpreter: 'node',
  autorestart: true,
  dependsOn: [],
  logs: { outFile: null, errorFile: null },
  ...extra,
  env: { ...SHELL, ...extra.env }
})
const up = (s, statuses = ['online']) => ({ name: s.name, spec: s, instances: statuses.map((status) => ({ status, lastExit: null })) })
const actionsOf = (plan) => Object.fromEntries(plan.actions.map((a) => [a.name, a.action]))

test('a new app starts, an unchanged one is left alone, a changed one reloads with its changed keys named', () => {
  const running = [up(spec('api', { env: { GREETING: 'hello' } })), up(spec('web'))]
  const desired = [spec('api', { env: { GREETING: 'bonjour' }, instances: 2, killTimeout: 3000 }), spec('web'), spec('worker')]
  const plan = planApply({ desired, running, cliEnv: SHELL })
  assert.deepEqual(actionsOf(plan), { api: 'reload', web: 'unchanged', worker: 'start' })
  assert.deepEqual(plan.actions.find((a) => a.name === 'api').changes, ['env.GREETING', 'instances', 'kill_timeout'], 'named as the file names them')
  assert.equal(plan.changes, 2)
})

test('idempotent: the same file against what it started plans nothing', () => {
  const desired = [spec('api', { env: { A: '1' } }), spec('web', { instances: 4, execMode: 'cluster' })]
  const plan = planApply({ desired, running: desired.map((s) => up(s)), cliEnv: SHELL })
  assert.equal(plan.changes, 0)
  assert.deepEqual(actionsOf(plan), { api: 'unchanged', web: 'unchanged' })
})

test('exec_mode needs a restart; instances alone is a scale', () => {
  const running = [up(spec('api')), up(spec('web', { instances: 2, execMode: 'cluster' }))]
  const plan = planApply({ desired: [spec('api', { execMode: 'cluster', instances: 2 }), spec('web', { instances: 4, execMode: 'cluster' })], running, cliEnv: SHELL })
  assert.deepEqual(actionsOf(plan), { api: 'restart', web: 'scale' })
  assert.match(plan.actions[0].reason, /^exec_mode cannot change by a reload$/)
  assert.deepEqual([plan.actions[1].from, plan.actions[1].to], [2, 4])
})

test('reuse_port on or off needs a restart (a reload of it is refused); a spec of an earlier xpm without the key is round-robin, unchanged', () => {
  const cluster = (name, extra = {}) => spec(name, { instances: 2, execMode: 'cluster', ...extra })
  const running = [up(cluster('on')), up(cluster('off', { reusePort: true })), up(cluster('old'))]
  const plan = planApply({ desired: [cluster('on', { reusePort: true }), cluster('off', { reusePort: false }), cluster('old', { reusePort: false })], running, cliEnv: SHELL })
  assert.deepEqual(actionsOf(plan), { on: 'restart', off: 'restart', old: 'reload' })
  assert.equal(plan.actions[0].reason, 'reuse_port cannot change by a reload')
})

test('apps not in the file: left alone, or deleted with --prune; --only leaves the file\'s other apps out of both', () => {
  const running = [up(spec('api')), up(spec('old')), up(spec('web'))]
  const desired = [spec('api')]
  assert.deepEqual(actionsOf(planApply({ desired, running, cliEnv: SHELL })), { api: 'unchanged', old: 'keep', web: 'keep' })
  const pruned = planApply({ desired, running, prune: true, cliEnv: SHELL })
  assert.deepEqual(actionsOf(pruned), { api: 'unchanged', old: 'delete', web: 'delete' })
  assert.equal(pruned.changes, 2)
  // `--only api` of a file that also has web: web is not pruned
  const only = planApply({ desired, fileNames: ['api', 'web'], running, prune: true, cliEnv: SHELL })
  assert.deepEqual(actionsOf(only), { api: 'unchanged', old: 'delete' })
})

test('a stopped app starts again; a one-shot job that finished with exit 0 is left alone, one that failed runs again', () => {
  const job = spec('migrate', { autorestart: false })
  const done = { name: 'migrate', spec: job, instances: [{ status: 'stopped', lastExit: { code: 0, signal: null } }] }
  const failed = { name: 'migrate', spec: job, instances: [{ status: 'stopped', lastExit: { code: 1, signal: null } }] }
  assert.deepEqual(actionsOf(planApply({ desired: [job], running: [done], cliEnv: SHELL })), { migrate: 'unchanged' })
  assert.deepEqual(actionsOf(planApply({ desired: [job], running: [failed], cliEnv: SHELL })), { migrate: 'start' })
  // a changed job runs again, even after a success
  assert.deepEqual(actionsOf(planApply({ desired: [{ ...job, args: ['--to', 'v2'] }], running: [done], cliEnv: SHELL })), { migrate: 'start' })
  assert.deepEqual(actionsOf(planApply({ desired: [spec('api')], running: [up(spec('api'), ['stopped'])], cliEnv: SHELL })), { api: 'start' })
})

test('environment: the file\'s variables are compared, the shell\'s are not (another shell, another folder)', () => {
  const started = { ...SHELL, TERM: 'xterm', PWD: '/home/me', DB: 'a', GONE: 'x' }
  const shell = { ...SHELL, TERM: 'screen', PWD: '/srv' }
  // the file now sets DB=b and no longer sets GONE; TERM and PWD come from the shell
  const file = (names) => ({ fromFile: ['DB', 'GONE'], toFile: names })
  assert.deepEqual(envChanges(started, { ...shell, DB: 'b' }, shell, file(['DB'])), ['DB', 'GONE'])
  assert.deepEqual(envChanges(started, { ...shell, DB: 'a', GONE: 'x' }, shell, file(['DB', 'GONE'])), [])
  // a spec of an earlier xpm (no envFromFile): the variables that differ from the shell's
  assert.deepEqual(envChanges(started, { ...shell, DB: 'b' }, shell), ['DB'])
  assert.deepEqual(specChanges({ env: { A: '1' }, dependsOn: [] }, { env: { A: '1' } }, {}), [], '[] and a missing depends_on are the same')
  assert.deepEqual(specChanges({ logs: { outFile: '/a' } }, { logs: { outFile: '/b' } }, {}), ['logs.outFile'])
  assert.deepEqual(['logs.outFile', 'maxMemoryRestart', 'env.X', 'somethingElse'].map(fileKey), ['out_file', 'max_memory_restart', 'env.X', 'somethingElse'])
  assert.deepEqual(specChanges({ instancesFrom: { count: 2 } }, { instancesFrom: { count: 4 } }, {}), [], 'where a count came from is no change')
})

test('environment as desired state: env: { DB_URL: process.env.DB_URL } with a new DB_URL is a change; a shell without OLDPWD is not', () => {
  const first = { ...SHELL, OLDPWD: '/home/me', DB_URL: 'postgres://a' }
  const running = spec('api', { env: { ...first }, envFromFile: ['DB_URL'] })
  // the file reads DB_URL from the shell: its value is the file's, whatever the shell says
  const shell = { ...SHELL, DB_URL: 'postgres://b' }
  const wanted = spec('api', { env: { ...shell }, envFromFile: ['DB_URL'] })
  const plan = planApply({ desired: [wanted], running: [up(running)], cliEnv: shell })
  assert.deepEqual(plan.actions.map((a) => [a.name, a.action, a.changes]), [['api', 'reload', ['env.DB_URL']]])
  // another terminal: no OLDPWD, another PWD, the same DB_URL: nothing to change
  const other = { PATH: '/usr/bin', HOME: '/root', PWD: '/elsewhere', DB_URL: 'postgres://a' }
  const same = planApply({ desired: [spec('api', { env: { ...other }, envFromFile: ['DB_URL'] })], running: [up(running)], cliEnv: other })
  assert.deepEqual(same.actions.map((a) => a.action), ['unchanged'])
  assert.equal(same.changes, 0)
})

test('autostart: false: registered and stopped is what the file says, not "start" at every apply', () => {
  const registered = spec('cron-job', { autostart: false })
  const plan = planApply({ desired: [registered], running: [up(registered, ['stopped'])] })
  assert.deepEqual(plan.actions.map((a) => [a.action, a.reason]), [['unchanged', 'autostart: false: registered, not started']])
  assert.equal(plan.changes, 0, '--dry-run exits 0')
  const changed = planApply({ desired: [spec('cron-job', { autostart: false, args: ['--new'] })], running: [up(registered, ['stopped'])] })
  assert.deepEqual(changed.actions.map((a) => [a.action, a.changes]), [['start', ['args']]])
  // started by hand since: running, compared as any other
  assert.deepEqual(planApply({ desired: [registered], running: [up(registered)] }).actions.map((a) => a.action), ['unchanged'])
})

test('deletes go dependents first; the plan prints one line per app and a summary', () => {
  const running = [up(spec('db')), up(spec('api', { dependsOn: ['db'] })), up(spec('keep'))]
  const plan = planApply({ desired: [spec('keep')], running, prune: true, cliEnv: SHELL })
  assert.deepEqual(deleteOrder(plan.actions, running), ['api', 'db'])
  const text = renderPlan('/srv/ecosystem.config.js', planApply({
    desired: [spec('api', { env: { GREETING: 'bonjour' } }), spec('web'), spec('worker')],
    running: [up(spec('api', { env: { GREETING: 'hello' } })), up(spec('web')), up(spec('old'))],
    cliEnv: SHELL
  }), { dryRun: true, tty: false })
  assert.equal(text, [
    '[xpm] plan (dry run, nothing is changed) for /srv/ecosystem.config.js:',
    '┌─────────────┬────────┬──────────────────────────────────────────┐',
    '│ action      │ app    │ why                                      │',
    '│ reload      │ api    │ changed: env.GREETING                    │',
    '│ leave alone │ web    │                                          │',
    '│ start       │ worker │ new                                      │',
    '│ leave alone │ old    │ not in the file; --prune would delete it │',
    '└─────────────┴────────┴──────────────────────────────────────────┘',
    '[xpm] 1 to reload, 2 to leave alone, 1 to start',
    ''
  ].join('\n'))
})
