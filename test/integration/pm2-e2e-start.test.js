'use strict'

// PM2's e2e scenarios about starting apps (cli/start-app.sh, cli/piped-config.sh,
// process-file/yaml-configuration.sh, cli/env-refresh.sh, and real ecosystem files with
// wait_ready and an instance_var PM2 takes), through the real CLI and one daemon.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, fixture, freePort, httpGet } = require('../helpers/xpm')

const ok = (res) => assert.equal(res.code, 0, `exit ${res.code}\n${res.stdout}\n${res.stderr}`)
const read = (file) => { try { return fs.readFileSync(file, 'utf8') } catch { return '' } }

test('a shell command line, process.yml with --env (and deploy.<env>.env), start - and delete -, wait_ready with no ready message', async (t) => {
  const h = createHome(t)
  const dir = fs.mkdtempSync(path.join(h.home, 'app-'))
  const IDLE = JSON.stringify(fixture('idle.js'))

  // start "a; b": run by a shell, as PM2 runs it
  const shellLog = path.join(dir, 'c-log.log')
  ok(await h.run(['start', `echo "Hello World"; exec node ${IDLE}`, '-l', shellLog, '--merge-logs', '--name', 'c-compile']))
  await waitFor(() => read(shellLog).includes('Hello World'), { message: 'the shell\'s output' })

  // YAML, --env production: env_production over env, deploy.production.env under both
  fs.writeFileSync(path.join(dir, 'process.yml'), [
    'apps:',
    '  - name: yaml-app',
    `    script: ${IDLE}`,
    '    env:',
    '      STAGE: dev',
    '    env_production:',
    '      STAGE: prod',
    'deploy:',
    '  production:',
    '    host: 212.83.163.1',
    '    env:',
    '      TEST_VARIABLE: No worries!',
    ''
  ].join('\n'))
  ok(await h.run(['start', path.join(dir, 'process.yml'), '--env', 'production']))
  const env = JSON.parse((await h.run(['env', 'yaml-app', '--json'])).stdout)
  assert.deepEqual([env.STAGE, env.TEST_VARIABLE], ['prod', 'No worries!'])

  // apps as JSON on stdin, and away again
  const apps = JSON.stringify({ apps: [{ name: 'piped-1', script: fixture('idle.js') }, { name: 'piped-2', script: fixture('idle.js') }] })
  ok(await h.run(['start', '-'], { input: apps }))
  assert.equal((await h.jlist()).filter((p) => p.name.startsWith('piped-') && p.status === 'online').length, 2)
  ok(await h.run(['delete', '-'], { input: apps }))
  assert.equal((await h.jlist()).filter((p) => p.name.startsWith('piped-')).length, 0)

  // a real ecosystem file: wait_ready for a script that never sends ready, a PM2-style instance_var
  fs.writeFileSync(path.join(dir, 'ecosystem.config.js'), `module.exports = { apps: [
    { name: 'backend', script: ${JSON.stringify(fixture('never-ready.js'))}, wait_ready: true, listen_timeout: 1500, instance_var: 'newonlyfans-backend' }
  ] }`)
  const res = await h.run(['start', path.join(dir, 'ecosystem.config.js')])
  ok(res)
  assert.match(res.stderr, /warning: backend\[0\] .*sent no 'ready' message within listen_timeout \(1500 ms\); taken as online/)
  const backend = (await h.jlist()).find((p) => p.name === 'backend')
  assert.equal(backend.status, 'online')
  const benv = JSON.parse((await h.run(['env', String(backend.id), '--json'])).stdout)
  assert.equal(benv['newonlyfans-backend'], '0')
  const why = JSON.parse((await h.run(['why', 'backend', '--json'])).stdout)
  assert.ok(why.some((e) => e.event === 'warning' && /sent no 'ready' message/.test(e.cause.detail)), JSON.stringify(why))
})

test('set <app>.<key> <value>: kept, given to the app as PM2 gives it, the app restarted; unset; get', async (t) => {
  const h = createHome(t)
  ok(await h.run(['unset', 'echo']))
  ok(await h.run(['start', fixture('idle.js'), '--name', 'echo']))
  ok(await h.run(['set', 'echo.config_var', 'false']))
  let env = JSON.parse((await h.run(['env', 'echo', '--json'])).stdout)
  assert.equal(env.config_var, 'false')
  ok(await h.run(['multiset', 'echo:conf false echo:probes true']))
  env = JSON.parse((await h.run(['env', 'echo', '--json'])).stdout)
  assert.deepEqual([env.conf, env.probes, JSON.parse(env.echo)], ['false', 'true', { config_var: 'false', conf: 'false', probes: 'true' }])
  const [proc] = await h.jlist()
  assert.equal(proc.restarts, 2, 'each set restarted the app')
  assert.equal((await h.run(['get', 'echo:probes'])).stdout.trim(), 'true')
  ok(await h.run(['unset', 'echo:probes']))
  assert.deepEqual(JSON.parse((await h.run(['get', 'echo'])).stdout), { config_var: 'false', conf: 'false' })
  const logrotate = await h.run(['set', 'pm2-logrotate:max_size', '10M'])
  ok(logrotate)
  assert.match(logrotate.stdout + logrotate.stderr, /log rotation is built in/)
})

test('start <program on PATH> alone (cli/binary.sh): runs it when no app has that name; a known name still means the app', async (t) => {
  const h = createHome(t)
  const bin = fs.mkdtempSync(path.join(h.home, 'bin-'))
  const program = path.join(bin, 'idle-daemon')
  fs.writeFileSync(program, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(fixture('idle.js'))}\n`, { mode: 0o755 })
  const env = { PATH: `${bin}:${process.env.PATH}` }
  ok(await h.run(['start', 'idle-daemon'], { env }))
  const [p] = await h.jlist()
  assert.deepEqual([p.name, p.status, p.restarts], ['idle-daemon', 'online', 0])
  const shown = JSON.parse((await h.run(['jlist', '--pm2'])).stdout)[0].pm2_env
  assert.deepEqual([shown.pm_exec_path, shown.exec_interpreter], [program, 'none'])
  // the second time the name is the app's: a start of a running app restarts it (smart start)
  ok(await h.run(['start', 'idle-daemon'], { env }))
  assert.deepEqual((await h.jlist()).map((x) => [x.name, x.restarts]), [['idle-daemon', 1]])
  const missing = await h.run(['start', 'no-such-program-or-app'], { env })
  assert.equal(missing.code, 1)
  assert.match(missing.stderr, /XPM_ERR_APP_NOT_FOUND/)
})

test('restart --node-args=null takes the flags away (process-file/app-config-update.sh): the app runs without them', async (t) => {
  const h = createHome(t)
  ok(await h.run(['start', fixture('idle.js'), '--name', 'flags', '--node-args=--no-warnings']))
  ok(await h.run(['restart', 'flags', '--node-args=null']))
  const [p] = JSON.parse((await h.run(['jlist', '--pm2'])).stdout)
  assert.equal(p.pm2_env.status, 'online')
  assert.equal('node_args' in p.pm2_env, false)
  assert.doesNotMatch(fs.readFileSync(`/proc/${p.pid}/cmdline`, 'utf8'), /--no-warnings/)
})

test('an app that reports @pm2/io metrics (cli/app-configuration.sh): jlist --pm2 shows the last ones it sent as axm_monitor, xpm show as code metrics', async (t) => {
  const h = createHome(t)
  const dir = fs.mkdtempSync(path.join(h.home, 'io-'))
  const app = path.join(dir, 'probes.js')
  // what @pm2/io's IPC transport sends every second
  fs.writeFileSync(app, "let n = 0\nsetInterval(() => process.send({ type: 'axm:monitor', data: { 'test-probe': { value: ++n, unit: 'req' } } }), 100)\n")
  ok(await h.run(['start', app, '--name', 'probe-test']))
  const metrics = async () => JSON.parse((await h.run(['jlist', '--pm2'])).stdout)[0].pm2_env.axm_monitor
  const seen = await waitFor(async () => { const m = await metrics(); return m['test-probe']?.value > 1 && m }, { message: 'the metrics of the app' })
  assert.equal(seen['test-probe'].unit, 'req')
  const shown = await h.run(['show', 'probe-test'])
  ok(shown)
  assert.match(shown.stdout, /Code metrics \(@pm2\/io\)[\s\S]*test-probe[^\n]*\d+ req/)
})

test('xpm serve (cli/serve.sh): a folder over HTTP as an app; the same from an ecosystem file (`static`, `script: serve`)', async (t) => {
  const h = createHome(t)
  const site = fs.mkdtempSync(path.join(h.home, 'site-'))
  fs.writeFileSync(path.join(site, 'index.html'), 'good stuff')
  const port = await freePort()
  ok(await h.run(['serve', site, String(port), '--spa', '--name', 'frontend']))
  assert.deepEqual((await h.jlist()).map((p) => [p.name, p.status]), [['frontend', 'online']])
  assert.equal((await httpGet(port, '/deep/link')).body, 'good stuff', 'single-page app: the homepage')
  ok(await h.run(['delete', 'all']))
  await assert.rejects(httpGet(port, '/'))

  const other = await freePort()
  fs.writeFileSync(path.join(site, 'static.json'), JSON.stringify({ static: [{ path: '.', port }], apps: [{ name: 'front2', script: 'serve', env: { PM2_SERVE_PORT: other, PM2_SERVE_PATH: '.' } }] }))
  ok(await h.run(['start', path.join(site, 'static.json')]))
  assert.deepEqual((await h.jlist()).map((p) => p.name).sort(), ['front2', `static-page-server-${port}`])
  assert.equal((await httpGet(port, '/index.html')).body, 'good stuff')
  assert.equal((await httpGet(other, '/')).body, 'good stuff')
})
