'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { createHome, waitFor, fixture, ROOT } = require('../helpers/xpm')
const { tempDir } = require('../helpers/tmp')

// Lines of the daemon's pino log (written asynchronously: poll it).
function daemonEvents (home) {
  let text = ''
  try { text = fs.readFileSync(path.join(home, 'daemon.log'), 'utf8') } catch {}
  return text.split('\n').filter(Boolean).map((l) => { try { return JSON.parse(l) } catch { return {} } })
}

function tmpDir (t) {
  const dir = tempDir('xpm-storm-')
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

const errored = (h, name) => waitFor(async () => (await h.jlist()).find((p) => p.name === name && p.status === 'errored'), { timeout: 30000, message: `${name} errored` })
  .catch(async (err) => {
    err.message += `\n${JSON.stringify(await h.jlist())}\n${daemonEvents(h.home).filter((e) => e.event !== 'status').map((e) => e.msg).join('\n')}`
    throw err
  })

// The default max_restarts (16) and restart_window (60 s); only the backoff is shortened, so the
// test takes seconds: the unit test (restart-policy.test.js) plays the defaults themselves.
function crashLoopEcosystem (t) {
  const dir = tmpDir(t)
  const file = path.join(dir, 'ecosystem.config.js')
  fs.writeFileSync(file, `module.exports = { apps: [{ name: 'loop', script: ${JSON.stringify(fixture('crash-on-boot.js'))}, exp_backoff_restart_delay: '10ms', max_backoff_delay: '50ms' }] }\n`)
  return { dir, file }
}

test('a crash-on-boot app with the default max_restarts reaches errored, with the reason in show', async (t) => {
  const h = createHome(t)
  const { file } = crashLoopEcosystem(t)
  const res = await h.run(['start', file])
  assert.notEqual(res.code, 0)
  const p = await errored(h, 'loop')
  assert.equal(p.restarts, 16)
  assert.equal(p.lastExit.code, 3)
  assert.equal(p.lastExit.reason, 'crash (exit code 3); 17 crashes in a row, each less than min_uptime (1s) after its start (max_restarts 16)')
  const show = await h.run(['show', 'loop'])
  assert.match(show.stdout, /17 crashes in a row/)
})

test('xpm-runtime with a crash-looping app exits with its code once it is errored', async (t) => {
  const h = createHome(t)
  const { file, dir } = crashLoopEcosystem(t)
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'xpm-runtime'), file], { cwd: dir, env: h.env, stdio: ['ignore', 'ignore', 'pipe'] })
  t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  let stderr = ''
  child.stderr.on('data', (d) => { stderr += d })
  let deadline
  const exit = await Promise.race([
    new Promise((resolve) => child.once('exit', (code) => resolve(code))),
    new Promise((resolve) => { deadline = setTimeout(resolve, 30000, 'no exit within 30 s') })
  ]).finally(() => clearTimeout(deadline))
  assert.equal(exit, 3, stderr.slice(-2000))
  assert.match(stderr, /17 crashes in a row/)
})

test('max_memory_restart: an app whose normal footprint is over the limit backs off and ends errored with a readable reason', async (t) => {
  const h = createHome(t)
  const res = await h.run(['start', fixture('fat-at-boot.js'), '--name', 'fat', '--max-memory-restart', '60M', '--max-restarts', '3'], { env: { PORT: '0', FAT_MB: '120' } })
  assert.equal(res.code, 0, res.stderr)
  const p = await errored(h, 'fat')
  assert.equal(p.restarts, 3)
  assert.match(p.lastExit.reason, /^memory \(\d+\.\dM > 60M\); 4 memory restarts in a row, each less than min_uptime \(1s\) after its start \(max_restarts 3\)$/)
  assert.equal(p.pid, 0, 'the process was stopped')
  const backoffs = daemonEvents(h.home).filter((e) => e.event === 'policy' && e.app === 'fat' && e.delay).map((e) => e.delay)
  assert.deepEqual(backoffs, [100, 200, 400])
  // the user acts: a restart starts afresh
  assert.equal((await h.run(['restart', 'fat'])).code, 0)
  // started afresh: under way again (its memory policy may already be replacing it: stopping or
  // waiting restart), not left errored
  const [again] = await h.jlist()
  assert.ok(!['errored', 'stopped'].includes(again.status), again.status)
})

test('watch: an app that writes into its own watched folder backs off and ends errored instead of looping', async (t) => {
  const h = createHome(t)
  const dir = tmpDir(t)
  fs.writeFileSync(path.join(dir, 'app.js'), [
    "const fs = require('node:fs')",
    "const touch = () => fs.writeFileSync(require('node:path').join(__dirname, 'out.txt'), String(Date.now()))",
    'setTimeout(touch, 50)',
    'setInterval(touch, 300)'
  ].join('\n') + '\n')
  const res = await h.run(['start', 'app.js', '--name', 'selfish', '--watch', '--watch-delay', '100ms', '--max-restarts', '3'], { cwd: dir })
  assert.equal(res.code, 0, res.stderr)
  const p = await errored(h, 'selfish')
  assert.equal(p.restarts, 3)
  assert.match(p.lastExit.reason, /^watch: out\.txt; 4 watch restarts in a row, each less than min_uptime \(1s\) after its start \(max_restarts 3\)$/)
  const backoffs = daemonEvents(h.home).filter((e) => e.event === 'policy' && e.app === 'selfish' && e.delay).map((e) => e.delay)
  assert.deepEqual(backoffs, [100, 200, 400])
})
