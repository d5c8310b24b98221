'use strict'

// PM2's e2e scenario binaries/pm2-runtime.sh, and `pm2 start --no-daemon`: what a Dockerfile
// passes pm2-runtime works with xpm-runtime (`start`, -i, a single-object app.json, --raw,
// --json, PM2 Plus keys), the runtime exits once no app is left, and `xpm start --no-daemon`
// runs the apps in the foreground.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { createHome, waitFor, fixture, ROOT, BIN } = require('../helpers/xpm')

const RUNTIME = path.join(ROOT, 'bin', 'xpm-runtime')

function run (h, bin, args, cwd) {
  const child = spawn(process.execPath, [bin, ...args], { cwd, env: h.env, stdio: ['ignore', 'pipe', 'pipe'] })
  const out = { stdout: '', stderr: '' }
  child.stdout.on('data', (d) => { out.stdout += d })
  child.stderr.on('data', (d) => { out.stderr += d })
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  return { child, out, exited }
}

test('xpm-runtime start app.json (one app object) --raw with PM2 Plus keys; `-i 2 --json`; an app that exits ends the runtime', async (t) => {
  const h = createHome(t)
  const dir = fs.mkdtempSync(path.join(h.home, 'app-'))
  fs.mkdirSync(path.join(dir, 'server'))
  fs.mkdirSync(path.join(dir, 'client'))
  fs.copyFileSync(fixture('tick-lines.js'), path.join(dir, 'app.js'))
  fs.writeFileSync(path.join(dir, 'app.json'), JSON.stringify({ name: 'api', script: 'app.js', watch: ['server', 'client'], ignore_watch: ['node_modules', 'client/img'], env: { TICK_MS: '100' } }))

  const one = run(h, RUNTIME, ['start', 'app.json', '--raw', '--secret', 'k', '--public', 'p'], dir)
  t.after(() => { try { one.child.kill('SIGKILL') } catch {} })
  await waitFor(() => /^tick \d+$/m.test(one.out.stdout), { timeout: 30000, message: `raw lines; got ${JSON.stringify(one.out)}` })
  assert.match(one.out.stderr, /notice: --secret: PM2 Plus/)
  const [api] = await h.jlist()
  assert.deepEqual([api.name, api.status], ['api', 'online'])
  const pm2 = JSON.parse((await h.run(['jlist', '--pm2'])).stdout)
  assert.equal(pm2[0].pm2_env.watch, true)
  one.child.kill('SIGTERM')
  assert.equal((await one.exited).code, 0)

  const many = run(h, RUNTIME, [path.join(dir, 'app.js'), '-i', '2', '--json'], dir)
  t.after(() => { try { many.child.kill('SIGKILL') } catch {} })
  // its output first: a `jlist` before the runtime holds XPM_HOME would start a daemon of its own there
  await waitFor(() => many.out.stdout.split('\n').some((l) => l.startsWith('{') && JSON.parse(l).message?.startsWith('tick')), { timeout: 30000, message: 'JSON lines' })
  await waitFor(async () => (await h.jlist()).filter((p) => p.status === 'online').length === 2, { timeout: 30000, message: 'two instances online' })
  many.child.kill('SIGTERM')
  assert.equal((await many.exited).code, 0)

  const done = run(h, RUNTIME, [fixture('exit-at-once.js'), '--no-autorestart'], dir)
  t.after(() => { try { done.child.kill('SIGKILL') } catch {} })
  const ended = await done.exited
  assert.equal(ended.code, 0, 'no app left: the runtime exits with the apps\' status')
})

test('xpm start app.js --no-daemon with no daemon running: the apps run in the foreground', async (t) => {
  const h = createHome(t)
  const fg = run(h, BIN, ['start', fixture('tick-lines.js'), '--no-daemon', '--name', 'fg'], ROOT)
  t.after(() => { try { fg.child.kill('SIGKILL') } catch {} })
  await waitFor(() => /^fg\[0\]\| tick \d+$/m.test(fg.out.stdout), { timeout: 30000, message: `the app's lines; got ${JSON.stringify(fg.out)}` })
  const [p] = await h.jlist()
  assert.deepEqual([p.name, p.status], ['fg', 'online'])
  fg.child.kill('SIGTERM')
  assert.equal((await fg.exited).code, 0)
})
