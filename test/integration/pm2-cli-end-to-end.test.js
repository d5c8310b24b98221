'use strict'

// Drop-in for PM2 (issue 17): the commands, target forms, flags and exit codes PM2 users' scripts
// rely on, through the real CLI, a real daemon per test and real processes. The tests are
// independent and run side by side.
const { describe, test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { createHome, runXpm, waitFor, fixture, isAlive, ROOT } = require('../helpers/xpm')

const IDLE = fixture('idle.js')
const ok = (res) => assert.equal(res.code, 0, `exit ${res.code}\n${res.stdout}\n${res.stderr}`)
const fails = (res, code = 1) => assert.equal(res.code, code, `expected exit ${code}, got ${res.code}\n${res.stdout}\n${res.stderr}`)
const byName = async (h) => Object.fromEntries((await h.jlist()).map((p) => [`${p.name}[${p.instance}]`, p]))

describe('PM2 commands, targets and exit codes', { concurrency: true }, () => {
  test('several scripts, several targets, script files, namespaces, regexes; nothing matched → 1; ids from 0 after delete all', async (t) => {
    const h = createHome(t)
    // several scripts in one start: several apps, named after their files
    ok(await h.run(['start', IDLE, fixture('tick-lines.js'), fixture('out-and-err.js')]))
    assert.deepEqual((await h.jlist()).map((p) => [p.id, p.name]), [[0, 'idle'], [1, 'tick-lines'], [2, 'out-and-err']])
    // restart a b: both, in one command
    ok(await h.run(['restart', 'idle', 'tick-lines']))
    let procs = await byName(h)
    assert.deepEqual([procs['idle[0]'].restarts, procs['tick-lines[0]'].restarts, procs['out-and-err[0]'].restarts], [1, 1, 0])
    // by script: its file name, or a path
    ok(await h.run(['restart', 'out-and-err.js']))
    ok(await h.run(['restart', './test/fixtures/idle.js'], { cwd: ROOT }))
    procs = await byName(h)
    assert.deepEqual([procs['idle[0]'].restarts, procs['out-and-err[0]'].restarts], [2, 1])

    // namespaces and regular expressions
    ok(await h.run(['start', IDLE, '--name', 'api-1', '--namespace', 'back', '-s']))
    ok(await h.run(['start', IDLE, '--name', 'api-2', '--namespace', 'back', '-s']))
    ok(await h.run(['stop', 'back']))
    procs = await byName(h)
    assert.deepEqual([procs['api-1[0]'].status, procs['api-2[0]'].status, procs['idle[0]'].status], ['stopped', 'stopped', 'online'])
    ok(await h.run(['start', '/^api-/']))
    ok(await h.run(['restart', '/^API-/i']))
    procs = await byName(h)
    assert.deepEqual([procs['api-1[0]'].status, procs['api-1[0]'].restarts, procs['api-2[0]'].restarts], ['online', 1, 1])
    ok(await h.run(['reset', 'back', 'idle']))
    assert.ok(Object.values(await byName(h)).filter((p) => ['api-1', 'api-2', 'idle'].includes(p.name)).every((p) => p.restarts === 0))
    const shown = await h.run(['describe', 'back', '--json'])
    ok(shown)
    assert.deepEqual(JSON.parse(shown.stdout).map((p) => p.name), ['api-1', 'api-2'])
    ok(await h.run(['desc', '3']))
    const pids = await h.run(['pid', 'back'])
    assert.equal(pids.stdout.trim().split('\n').filter((l) => /^\d+$/.test(l)).length, 2)
    assert.equal((await h.run(['id', 'api-2'])).stdout.trim(), '[4]')
    const ghostId = await h.run(['id', 'ghost'])
    ok(ghostId)
    assert.equal(ghostId.stdout.trim(), '[]')
    // the other commands take the same target forms
    const signalled = await h.run(['sendSignal', 'SIGWINCH', 'back', '--json'])
    ok(signalled)
    assert.deepEqual(JSON.parse(signalled.stdout).sent.map((s) => s.name), ['api-1', 'api-2'])
    const scaled = await h.run(['scale', '3', '+1', '--json'])
    ok(scaled)
    assert.deepEqual([JSON.parse(scaled.stdout).name, JSON.parse(scaled.stdout).to], ['api-1', 2])
    ok(await h.run(['scale', '/^api-1$/', '1']))
    fails(await h.run(['scale', 'back', '2']), 2)
    ok(await h.run(['logs', '/^api-/', 'idle', '--nostream', '--lines', '1']))
    ok(await h.run(['flush', 'back']))
    const env = await h.run(['env', '4'])
    ok(env)
    assert.match(env.stdout, /^NODE_APP_INSTANCE: 0$/m)
    assert.match(env.stdout, /^XPM_APP_NAME: api-2$/m)

    // nothing matched: exit 1, nothing done; a miss among several targets changes nothing
    const before = await h.jlist()
    fails(await h.run(['stop', '/^db-/']))
    fails(await h.run(['restart', 'idle', 'ghost']))
    fails(await h.run(['stop', 'nope.js']))
    assert.deepEqual((await h.jlist()).map((p) => [p.pid, p.restarts]), before.map((p) => [p.pid, p.restarts]))

    // lists: --sort, -m, prettylist, jlist --pm2
    const sorted = JSON.parse((await h.run(['ls', '--sort', 'name:desc', '--json'])).stdout)
    assert.deepEqual(sorted.map((p) => p.name), ['tick-lines', 'out-and-err', 'idle', 'api-2', 'api-1'])
    const bad = await h.run(['ls', '--sort', 'nmae'])
    fails(bad, 2)
    assert.match(bad.stderr, /did you mean "name"/)
    const mini = await h.run(['-m', 'ls'])
    ok(mini)
    const lines = mini.stdout.trim().split('\n')
    assert.equal(lines.length, 6)
    assert.match(lines[0], /^id +name +namespace +mode +pid/)
    assert.ok(!/[│┌]/.test(mini.stdout))
    const pretty = await h.run(['prettylist'])
    ok(pretty)
    assert.ok(pretty.stdout.includes('\n  {'), 'indented')
    assert.equal(JSON.parse(pretty.stdout).length, 5)
    const pm2 = JSON.parse((await h.run(['jlist', '--pm2'])).stdout)
    const api2 = pm2.find((p) => p.name === 'api-2')
    assert.equal(api2.pm_id, 4)
    assert.ok(api2.pid > 0 && isAlive(api2.pid))
    assert.equal(typeof api2.monit.cpu, 'number')
    assert.ok(api2.monit.memory > 0)
    assert.deepEqual([api2.pm2_env.status, api2.pm2_env.restart_time, api2.pm2_env.exec_mode, api2.pm2_env.namespace], ['online', 0, 'fork_mode', 'back'])
    assert.ok(Math.abs(Date.now() - api2.pm2_env.pm_uptime) < 120000)
    assert.equal(api2.pm2_env.pm_out_log_path, path.join(h.home, 'logs', 'api-2-out.log'))
    assert.equal(api2.pm2_env.pm_err_log_path, path.join(h.home, 'logs', 'api-2-error.log'))
    assert.equal(JSON.parse((await h.run(['prettylist', '--pm2'])).stdout).length, 5)

    // -s hides the messages and the table, not the error line
    const silent = await h.run(['restart', 'idle', '-s'])
    ok(silent)
    assert.equal(silent.stdout, '')
    assert.equal((await h.run(['stop', 'idle', '--watch'], { env: { PM2_SILENT: 'true' } })).stdout, '')

    // save, dump, cleardump
    ok(await h.run(['dump']))
    assert.equal(JSON.parse(fs.readFileSync(path.join(h.home, 'dump.pm2'), 'utf8')).apps.length, 5)
    ok(await h.run(['cleardump']))
    assert.equal(JSON.parse(fs.readFileSync(path.join(h.home, 'dump.pm2'), 'utf8')).apps.length, 0)

    // delete all, then every "all" command has nothing to act on: exit 1, as PM2
    const left = (await h.jlist()).map((p) => p.pid).filter(Boolean)
    ok(await h.run(['delete', 'all']))
    for (const cmd of ['stop', 'restart', 'reload', 'delete', 'reset']) {
      const res = await h.run([cmd, 'all'])
      fails(res)
      assert.match(res.stderr, /XPM_ERR_APP_NOT_FOUND/, cmd)
    }
    ok(await h.run(['save', '--force']))
    ok(await h.run(['start', IDLE, '--name', 'again']))
    assert.deepEqual((await h.jlist()).map((p) => p.id), [0], 'ids start again from 0')
    for (const pid of left) await waitFor(() => !isAlive(pid), { message: `pid ${pid} gone` })
  })

  test('ecosystem deploys: reload and restart start what is missing, count restarts; startOrX; start - and start without a target', async (t) => {
    const h = createHome(t)
    const dir = fs.mkdtempSync(path.join(h.home, 'app-'))
    fs.writeFileSync(path.join(dir, 'ecosystem.config.js'), `module.exports = { apps: [
      { name: 'web', script: ${JSON.stringify(IDLE)}, instances: 2 },
      { name: 'jobs', script: ${JSON.stringify(IDLE)} }
    ] }`)
    const eco = path.join(dir, 'ecosystem.config.js')
    // the usual deploy command on a machine where nothing runs yet
    ok(await h.run(['reload', eco]))
    let procs = await byName(h)
    assert.deepEqual(Object.keys(procs).sort(), ['jobs[0]', 'web[0]', 'web[1]'])
    assert.ok(Object.values(procs).every((p) => p.status === 'online' && p.restarts === 0))
    // restart <file>: new pids and the restart count grows
    ok(await h.run(['restart', eco]))
    const after = await byName(h)
    for (const [k, p] of Object.entries(after)) {
      assert.equal(p.restarts, 1, k)
      assert.notEqual(p.pid, procs[k].pid, k)
    }
    // startOrReload: a stopped app of the file starts, the others reload
    ok(await h.run(['stop', 'jobs']))
    ok(await h.run(['startOrReload', eco]))
    procs = await byName(h)
    assert.deepEqual([procs['jobs[0]'].status, procs['web[0]'].restarts, procs['web[1]'].restarts], ['online', 2, 2])
    ok(await h.run(['startOrRestart', eco, '--only', 'jobs']))
    assert.equal((await byName(h))['jobs[0]'].restarts, 2)
    ok(await h.run(['startOrGracefulReload', eco]))
    ok(await h.run(['gracefulReload', 'web']))
    fails(await h.run(['startOrRestart', IDLE]), 2)
    // stop / delete of a file skip its apps the daemon does not run, and say so
    const mixed = path.join(dir, 'mixed.config.js')
    fs.writeFileSync(mixed, `module.exports = { apps: [{ name: 'jobs', script: ${JSON.stringify(IDLE)} }, { name: 'never', script: ${JSON.stringify(IDLE)} }] }`)
    const stopped = await h.run(['stop', mixed])
    ok(stopped)
    assert.match(stopped.stdout, /not managed, nothing to stop: never/)

    // apps as JSON on stdin, paths from the current folder
    const piped = await h.run(['start', '-'], { cwd: ROOT, input: JSON.stringify({ apps: [{ name: 'piped', script: 'test/fixtures/idle.js', env: { FROM: 'stdin' } }] }) })
    ok(piped)
    const [shownPiped] = JSON.parse((await h.run(['show', 'piped', '--json'])).stdout)
    assert.equal(shownPiped.status, 'online')
    assert.equal(shownPiped.spec.env.FROM, 'stdin')
    fails(await h.run(['start', '-'], { input: '{ not json' }), 2)
    // no target: the ecosystem file of the current folder
    ok(await h.run(['delete', 'web', 'jobs']))
    ok(await h.run(['start'], { cwd: dir }))
    assert.deepEqual(Object.keys(await byName(h)).sort(), ['jobs[0]', 'piped[0]', 'web[0]', 'web[1]'])
    fails(await h.run(['start'], { cwd: os.tmpdir() }), 2)
  })

  test('logs --lines N per file with stderr marked; a date format alone; jobs that finish; flush', async (t) => {
    const h = createHome(t)
    ok(await h.run(['start', fixture('out-and-err.js'), '--name', 'noisy', '--log-date-format', '[y]YYYY']))
    const outFile = path.join(h.home, 'logs', 'noisy-out.log')
    const errFile = path.join(h.home, 'logs', 'noisy-error.log')
    const count = (f) => { try { return fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).length } catch { return 0 } }
    await waitFor(() => count(outFile) === 20 && count(errFile) === 20, { message: 'the 40 lines in the files' })
    // the date format alone prefixes the date, as in PM2
    assert.match(fs.readFileSync(outFile, 'utf8').split('\n')[0], /^y\d{4}: out 1$/)
    const logs = await h.run(['logs', 'noisy', '--lines', '5', '--nostream'])
    ok(logs)
    const printed = logs.stdout.trim().split('\n')
    assert.deepEqual(printed.map((l) => l.replace(/^\d+\|noisy\|/, '').replace(/y\d{4}: /, '')),
      [' out 16', ' out 17', ' out 18', ' out 19', ' out 20', 'err| err 16', 'err| err 17', 'err| err 18', 'err| err 19', 'err| err 20'])
    const errOnly = await h.run(['logs', 'noisy', '--lines', '2', '--nostream', '--err', '--raw'])
    assert.deepEqual(errOnly.stdout.trim().split('\n').map((l) => l.replace(/^y\d{4}: /, '')), ['err 19', 'err 20'])
    const formatted = await h.run(['logs', 'noisy', '--lines', '1', '--nostream', '--format', '--out'])
    assert.match(formatted.stdout.trim(), /^app=noisy id=0 type=out message=y\d{4}: out 20$/)
    const stamped = await h.run(['logs', 'noisy', '--lines', '1', '--nostream', '--out', '--raw', '--timestamp', 'YYYY'])
    assert.match(stamped.stdout.trim(), /^(\d{4} )?y\d{4}: out 20$/)

    // a job that finished with code 0 before it was ready: exit 0, stopped; a non-zero exit fails
    const job = await h.run(['start', fixture('exit-at-once.js'), '--name', 'job', '--no-autorestart'])
    ok(job)
    assert.equal((await byName(h))['job[0]'].status, 'stopped')
    const broken = await h.run(['start', fixture('exit-at-once.js'), '--name', 'broken', '--no-autorestart'], { env: { EXIT_CODE: '3' } })
    fails(broken)
    assert.match(broken.stderr, /XPM_ERR_START_FAILED/)

    ok(await h.run(['flush', 'noisy']))
    assert.equal(count(outFile), 0)
    assert.equal(count(errFile), 0)
  })

  test('options changed on restart and reload, rename; the CLI alone: no command, PM2-only commands, typos, PM2_HOME', async (t) => {
    const h = createHome(t)
    const quiet = fs.mkdtempSync(path.join(h.home, 'cwd-')) // a folder nothing writes to, to watch
    ok(await h.run(['start', IDLE, '--name', 'svc', '-i', '2'], { cwd: quiet }))
    ok(await h.run(['restart', 'svc', '--node-args=--max-old-space-size=96', '--watch', '--cron-restart', '0 3 * * *'], { env: { ADDED: 'no' } }))
    const spec = async (name) => JSON.parse((await h.run(['show', name, '--json'])).stdout)[0].spec
    let s = await spec('svc')
    assert.deepEqual([s.nodeArgs, s.watch, s.cronRestart], [['--max-old-space-size=96'], [quiet], '0 3 * * *'])
    assert.equal(s.env.ADDED, undefined, 'the environment stays without --update-env')
    ok(await h.run(['reload', 'svc', '--no-watch', '--update-env'], { env: { ADDED: 'yes' } }))
    s = await spec('svc')
    assert.deepEqual([s.watch, s.env.ADDED], [false, 'yes'])
    const ids = (await h.jlist()).map((p) => p.id)
    ok(await h.run(['restart', 'svc', '--name', 'renamed']))
    const list = await h.jlist()
    assert.deepEqual(list.map((p) => [p.id, p.name, p.status]), ids.map((id) => [id, 'renamed', 'online']))
    fails(await h.run(['restart', 'renamed', 'all', '--name', 'x']), 2)

    // the CLI without a daemon
    const bare = await runXpm([], { env: h.env })
    fails(bare, 2)
    assert.match(bare.stderr, /Usage: xpm/)
    const deploy = await h.run(['deploy', 'production', 'update'], { cwd: h.home })
    fails(deploy, 2)
    assert.match(deploy.stderr, /no deployment file here .*XPM_ERR_DEPLOY_CONFIG/)
    ok(await h.run(['install', 'pm2-logrotate']))
    fails(await h.run(['install', 'pm2-server-monit']))
    ok(await h.run(['set', 'pm2-logrotate:max_size', '10M']))
    const typo = await h.run(['restrat', 'svc'])
    fails(typo, 2)
    assert.match(typo.stderr, /Did you mean restart\?/)
    fails(await h.run(['startup', 'launchd']))

    // PM2_HOME stands in for XPM_HOME: the daemon lives in $PM2_HOME/xpm
    const pm2Home = path.join(h.home, 'pm2home')
    const env = { ...h.env, PM2_HOME: pm2Home }
    delete env.XPM_HOME
    let pid = 0
    t.after(() => { if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL') })
    ok(await runXpm(['ping'], { env }))
    pid = Number(fs.readFileSync(path.join(pm2Home, 'xpm', 'daemon.pid'), 'utf8'))
    assert.ok(fs.existsSync(path.join(pm2Home, 'xpm', 'daemon.sock')))
    ok(await runXpm(['kill'], { env }))
  })
})
