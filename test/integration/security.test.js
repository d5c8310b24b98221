'use strict'

// Another local user must not be able to touch my daemon; a removed daemon.sock and a command
// during shutdown are recovered from. "Another user" is played with setpriv as nobody (65534),
// which needs root: elsewhere those tests are skipped and say why.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { spawn, execFile } = require('node:child_process')
const { createHome, runXpm, waitFor, isAlive, fixture } = require('../helpers/xpm')

const NOBODY = 65534
const isRoot = process.getuid?.() === 0
const needsRoot = (t) => {
  if (isRoot) return false
  t.skip('needs root to play another user')
  return true
}

// Runs `node -e code` as nobody; resolves { code, stdout, stderr }.
function asNobody (code, { timeout = 10000 } = {}) {
  return new Promise((resolve) => {
    execFile('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, '-e', code], { timeout }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr })
    })
  })
}

// A folder of /tmp for one test, removed after it (mkdtemp: 0700, ours).
function tmpDir (t, prefix = 'xpm-sec-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

const lockSocket = (home) => {
  const dir = path.join(home, 'daemon.lock')
  return path.join(dir, fs.readdirSync(dir)[0])
}

const connectCode = (file) => `require('node:net').createConnection(${JSON.stringify(file)})
  .on('connect', () => { console.log('connected'); process.exit(0) })
  .on('error', (e) => { console.log(e.code); process.exit(0) })`

test('another user can neither connect to my daemon\'s socket nor to its lock', async (t) => {
  if (needsRoot(t)) return
  const h = createHome(t)
  assert.equal((await h.run(['ping'])).code, 0)
  for (const file of [path.join(h.home, 'daemon.sock'), lockSocket(h.home)]) {
    const res = await asNobody(connectCode(file))
    assert.equal(res.stdout.trim(), 'EACCES', `${file}: ${res.stdout}${res.stderr}`)
  }
})

test('another user cannot take the lock before my daemon starts: the old abstract name is ignored, the new one is out of reach', async (t) => {
  if (needsRoot(t)) return
  const h = createHome(t)
  // The lock used to be the abstract socket "\0xpm-<sha256(home)>", which any user could take.
  const abstract = '\0xpm-' + crypto.createHash('sha256').update(h.home).digest('hex').slice(0, 32)
  const squatter = spawn('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, '-e', `
    const fs = require('node:fs')
    let mkdir = 'ok'
    try { fs.mkdirSync(${JSON.stringify(path.join(h.home, 'daemon.lock'))}) } catch (e) { mkdir = e.code }
    require('node:net').createServer(() => {}).listen(${JSON.stringify(abstract)}, () => console.log('squatting ' + mkdir))
  `], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.after(() => { try { squatter.kill('SIGKILL') } catch {} })
  const line = await new Promise((resolve) => squatter.stdout.once('data', (d) => resolve(String(d).trim())))
  assert.equal(line, 'squatting EACCES', 'nobody cannot create anything in my XPM_HOME, and holds the old name')

  const res = await h.run(['ping'])
  assert.equal(res.code, 0, res.stderr)
  assert.match(res.stdout, /pong \(daemon pid \d+/)
})

test('a home another user prepared (with a state file listing a script) is refused: nothing of theirs runs', async (t) => {
  if (needsRoot(t)) return
  const base = tmpDir(t)
  const home = path.join(base, 'prepared')
  const marker = path.join(base, 'marker')
  fs.mkdirSync(home, { mode: 0o700 })
  const script = path.join(home, 'evil.js')
  fs.writeFileSync(script, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran as ' + process.getuid())\nsetInterval(() => {}, 1000)\n`)
  // a state file as a crashed daemon leaves it: the next daemon would restore its apps
  const spec = { name: 'evil', script, cwd: home, args: [], nodeArgs: [], env: {}, instances: 1, execMode: 'fork', interpreter: 'node', autorestart: true }
  fs.writeFileSync(path.join(home, 'state.json'), JSON.stringify({ version: 1, cleanShutdown: false, apps: [{ spec, instances: [{ id: 0, index: 0, desired: 'online' }] }], processes: [] }))
  for (const f of [home, script, path.join(home, 'state.json')]) fs.chownSync(f, NOBODY, NOBODY)

  const res = await runXpm(['ping'], { env: { ...process.env, XPM_HOME: home }, timeout: 20000 })
  assert.equal(res.code, 1, res.stdout + res.stderr)
  assert.match(res.stderr, /XPM_HOME .*prepared is owned by uid 65534, not by you \(uid 0\).*Fix: use a folder of your own.*\[XPM_ERR_HOME_UNSAFE\]/)
  assert.equal(fs.existsSync(path.join(home, 'daemon.pid')), false, 'no daemon started')

  // the daemon itself refuses too (xpm startup's unit runs it directly)
  const direct = await new Promise((resolve) => {
    execFile(process.execPath, [path.join(__dirname, '..', '..', 'daemon', 'index.js')], { env: { ...process.env, XPM_HOME: home }, timeout: 20000 }, (err, stdout, stderr) => resolve({ code: err?.code ?? 0, stderr }))
  })
  assert.equal(direct.code, 1)
  assert.match(direct.stderr, /xpm daemon failed to start: XPM_HOME .* is owned by uid 65534.*\[XPM_ERR_HOME_UNSAFE\]/)
  assert.equal(fs.existsSync(marker), false, 'the prepared script never ran')
})

test('a group-writable home, a symlinked home and a symlinked logs folder are refused with XPM_ERR_HOME_UNSAFE', async (t) => {
  const base = tmpDir(t)
  const run = (home, args = ['ping']) => runXpm(args, { env: { ...process.env, XPM_HOME: home }, timeout: 20000 })

  const shared = path.join(base, 'group')
  fs.mkdirSync(shared, { mode: 0o700 })
  fs.chmodSync(shared, 0o770)
  let res = await run(shared)
  assert.equal(res.code, 1)
  assert.match(res.stderr, /is writable by its group \(mode 0770\).*chmod 700.*\[XPM_ERR_HOME_UNSAFE\]/)

  const real = path.join(base, 'real')
  fs.mkdirSync(real, { mode: 0o700 })
  fs.symlinkSync(real, path.join(base, 'link'))
  res = await run(path.join(base, 'link'))
  assert.equal(res.code, 1)
  assert.match(res.stderr, /is a symbolic link.*\[XPM_ERR_HOME_UNSAFE\]/)

  // logs/ is checked by the daemon: the CLI reports the daemon's refusal at once, not after 10 s
  const h = createHome(t)
  fs.mkdirSync(path.join(base, 'elsewhere'))
  fs.symlinkSync(path.join(base, 'elsewhere'), path.join(h.home, 'logs'))
  const started = Date.now()
  res = await h.run(['ping'])
  assert.equal(res.code, 1)
  assert.match(res.stderr, /daemon exited with code 1 at start-up: .*logs is a symbolic link.*XPM_ERR_HOME_UNSAFE/)
  assert.ok(Date.now() - started < 8000, 'failed fast')
})

test('a state.json that is a symbolic link is not followed: nothing restored, the reason logged', async (t) => {
  const h = createHome(t)
  assert.equal((await h.run(['start', fixture('idle.js'), '--name', 'linked'])).code, 0)
  const [proc] = await h.jlist()
  const daemon = h.daemonPid()
  process.kill(daemon, 'SIGKILL') // a crash: state.json says restore 'linked'
  await waitFor(() => !isAlive(daemon), { message: 'daemon gone' })
  process.kill(proc.pid, 'SIGKILL')
  const state = path.join(h.home, 'state.json')
  const elsewhere = path.join(tmpDir(t), 'state.json')
  fs.renameSync(state, elsewhere)
  fs.symlinkSync(elsewhere, state)
  const before = fs.readFileSync(elsewhere, 'utf8')

  assert.deepEqual(await h.jlist(), [], 'nothing restored from the linked file')
  const log = fs.readFileSync(path.join(h.home, 'daemon.log'), 'utf8')
  assert.match(log, /state\.json[^\n]*is a symbolic link/, 'the daemon log says why the state was not used')
  assert.equal(fs.readFileSync(elsewhere, 'utf8'), before, 'the link target was not written either')
})

test('log files in folders another user can write are refused (the app runs, its lines stay in `xpm logs`); in a folder of mine nobody else can plant a link', async (t) => {
  if (needsRoot(t)) return
  const h = createHome(t)
  const shared = tmpDir(t, 'xpm-shared-')
  fs.chmodSync(shared, 0o1777) // like /tmp
  const theirs = tmpDir(t, 'xpm-theirs-')
  fs.chownSync(theirs, NOBODY, NOBODY) // a folder of another user, writable only by them
  fs.chmodSync(theirs, 0o755)
  const victim = path.join(tmpDir(t), 'victim')
  fs.writeFileSync(victim, 'precious\n', { mode: 0o644 })
  const out = path.join(shared, 'app-out.log')
  const err = path.join(theirs, 'app-err.log')
  const planted = await asNobody(`const fs = require('node:fs')
    fs.symlinkSync(${JSON.stringify(victim)}, ${JSON.stringify(out)})
    fs.writeFileSync(${JSON.stringify(err)}, 'theirs', { mode: 0o666 })
    console.log('planted')`)
  assert.equal(planted.stdout.trim(), 'planted', planted.stderr)

  const res = await h.run(['start', fixture('tick-lines.js'), '--name', 'ticker', '--output', out, '--error', err])
  assert.equal(res.code, 0, res.stderr)
  await waitFor(async () => {
    const logs = await h.run(['logs', 'ticker', '--nostream', '--lines', '5'])
    return /tick 3/.test(logs.stdout)
  }, { timeout: 15000, message: 'the lines in xpm logs' })
  const [proc] = await h.jlist()
  assert.equal(proc.status, 'online')
  assert.equal(fs.readFileSync(victim, 'utf8'), 'precious\n', 'the link target is untouched')
  assert.equal(fs.lstatSync(out).isSymbolicLink(), true)
  const daemonLog = () => fs.readFileSync(path.join(h.home, 'daemon.log'), 'utf8')
  await waitFor(() => daemonLog().includes(`log file ${out} refused: its folder ${shared} is writable by its group and every user (mode 1777)`) && /Fix: log into a folder only you can write/.test(daemonLog()), { message: 'the reason in daemon.log' })
  await waitFor(() => daemonLog().includes(`log file ${err} refused: its folder ${theirs} is owned by uid 65534, neither root nor you (uid 0)`), { message: 'the other folder refused too' })
  await waitFor(async () => /warn 10/.test((await h.run(['logs', 'ticker', '--nostream', '--err', '--lines', '50'])).stdout), { timeout: 15000, message: 'stderr lines in xpm logs' })
  assert.equal(fs.readFileSync(err, 'utf8'), 'theirs', 'nothing written into a file of another user')

  // A folder of mine (0755: others may read and enter it) is where rotating-file-stream may open
  // by name: another user cannot create a link, a file or a hard link there.
  const mine = tmpDir(t, 'xpm-mine-')
  fs.chmodSync(mine, 0o755)
  const tried = await asNobody(`const fs = require('node:fs')
    const codes = []
    for (const plant of [() => fs.symlinkSync(${JSON.stringify(victim)}, ${JSON.stringify(path.join(mine, 'app.log'))}),
      () => fs.symlinkSync(${JSON.stringify(victim)}, ${JSON.stringify(path.join(mine, 'app.log.1.gz'))}),
      () => fs.writeFileSync(${JSON.stringify(path.join(mine, 'app.log'))}, 'x'),
      () => fs.linkSync(${JSON.stringify(victim)}, ${JSON.stringify(path.join(mine, 'app.log'))})]) {
      try { plant(); codes.push('planted') } catch (e) { codes.push(e.code) }
    }
    console.log(codes.join(' '))`)
  assert.equal(tried.stdout.trim(), 'EACCES EACCES EACCES EACCES', tried.stderr)
  assert.deepEqual(fs.readdirSync(mine), [])
})

test('daemon.sock removed while the daemon runs: it listens again, `xpm list` reaches the same daemon, `xpm kill` stops it', async (t) => {
  const h = createHome(t)
  assert.equal((await h.run(['start', fixture('idle.js'), '--name', 'kept'])).code, 0)
  const daemon = h.daemonPid()
  const sock = path.join(h.home, 'daemon.sock')

  fs.rmSync(sock)
  await waitFor(() => fs.existsSync(sock), { message: 'the socket back without any CLI (the daemon watches XPM_HOME)' })
  const list = await h.jlist()
  assert.deepEqual(list.map((p) => p.name), ['kept'])
  assert.equal(h.daemonPid(), daemon)
  assert.equal(fs.statSync(sock).mode & 0o777, 0o600)

  // removed again and asked at once: the CLI finds the daemon by its lock, which makes it listen
  fs.rmSync(sock)
  const kill = await h.run(['kill'])
  assert.equal(kill.code, 0, kill.stderr)
  assert.match(kill.stdout, new RegExp(`daemon \\(pid ${daemon}\\) stopped`))
  assert.equal(isAlive(daemon), false)
  assert.equal(isAlive(list[0].pid), false)
})

// An app that needs ~2.5 s to stop keeps `xpm kill` busy; a command sent meanwhile waits for
// that daemon to exit and runs on a new one.
async function commandDuringShutdown (t, { removeSocket }) {
  const h = createHome(t)
  const res = await h.run(['start', fixture('slow-exit.js'), '--name', 'slow', '--kill-timeout', '10s'], { env: { EXIT_DELAY_MS: '2500' } })
  assert.equal(res.code, 0, res.stderr)
  await h.jlist()
  const old = h.daemonPid()
  const log = path.join(h.home, 'daemon.log')
  const killing = h.run(['kill'])
  await waitFor(() => fs.readFileSync(log, 'utf8').includes('"event":"shutdown"'), { message: 'the shutdown under way' })
  if (removeSocket) fs.rmSync(path.join(h.home, 'daemon.sock'), { force: true })
  const started = await h.run(['start', fixture('idle.js'), '--name', 'other'])
  assert.equal(started.code, 0, started.stderr)
  assert.match(started.stderr, new RegExp(`the daemon \\(pid ${old}\\) is shutting down; waiting for it to exit`))
  const killed = await killing
  assert.equal(killed.code, 0, killed.stderr)
  assert.equal(isAlive(old), false)
  const now = h.daemonPid()
  assert.ok(now && now !== old && isAlive(now), 'a new daemon runs')
  const list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.name, p.status]), [['other', 'online']])
}

test('a command during shutdown (answered XPM_ERR_SHUTTING_DOWN) waits for the old daemon, then runs on a new one', async (t) => {
  await commandDuringShutdown(t, { removeSocket: false })
})

test('a command during shutdown that finds no socket asks the lock, waits for the old daemon, then starts a new one', async (t) => {
  await commandDuringShutdown(t, { removeSocket: true })
})

test('an app run as nobody: its exec probes and on_event hooks run as nobody, in its folder, and a hook left running ends with the app\'s delete', { skip: require('../helpers/nobody').nobodySkipReason() }, async (t) => {
  if (needsRoot(t)) return
  const { pidsWithEnv } = require('../helpers/procs')
  const h = createHome(t)
  // the app's folder is nobody's: the app could rewrite anything its probe or hook calls
  const dir = tmpDir(t)
  fs.chmodSync(dir, 0o755)
  fs.chownSync(dir, NOBODY, NOBODY)
  const script = path.join(dir, 'app.js')
  fs.writeFileSync(script, 'setInterval(() => {}, 1000)\n')
  const mark = `${process.pid}-${Date.now()}`
  const eco = path.join(h.home, 'ecosystem.config.js')
  fs.writeFileSync(eco, `module.exports = { apps: [{
    name: 'low', script: ${JSON.stringify(script)}, cwd: ${JSON.stringify(dir)}, uid: ${NOBODY}, gid: ${NOBODY},
    env: { XPM_SEC_MARK: ${JSON.stringify(mark)} },
    readiness: { exec: 'id -u > probe-ids; id -g >> probe-ids; pwd >> probe-ids', interval: '200ms' },
    liveness: { exec: 'test ! -e fail-now', interval: '200ms', failure_threshold: 1 },
    on_event: { restart: 'id -u > hook-ids; id -g >> hook-ids; pwd >> hook-ids; sleep 120 & sleep 120', timeout: '5m' }
  }] }\n`)
  const res = await h.run(['start', eco])
  assert.equal(res.code, 0, res.stdout + res.stderr)
  const read = (name) => { try { return fs.readFileSync(path.join(dir, name), 'utf8') } catch { return '' } }
  const probeIds = await waitFor(() => read('probe-ids').split('\n').length >= 4 && read('probe-ids'), { message: 'the readiness probe to record who ran it' })
  assert.equal(probeIds, `${NOBODY}\n${NOBODY}\n${dir}\n`, 'the exec probe ran as the app\'s user and group, in its folder')

  fs.writeFileSync(path.join(dir, 'fail-now'), '')
  const hookIds = await waitFor(() => read('hook-ids').split('\n').length >= 4 && read('hook-ids'), { timeout: 20000, message: 'the restart hook to record who ran it' })
  fs.rmSync(path.join(dir, 'fail-now'))
  assert.equal(hookIds, `${NOBODY}\n${NOBODY}\n${dir}\n`, 'the hook ran as the app\'s user and group, in its folder')
  const hookPids = await waitFor(() => { const pids = pidsWithEnv([`XPM_SEC_MARK=${mark}`, 'XPM_EVENT=restart']); return pids.length >= 2 && pids }, { message: 'the hook and its background sleep' })
  t.after(() => { for (const pid of hookPids) try { process.kill(pid, 'SIGKILL') } catch {} })

  assert.equal((await h.run(['delete', 'low'])).code, 0)
  await waitFor(() => pidsWithEnv([`XPM_SEC_MARK=${mark}`]).length === 0, { timeout: 10000, message: 'the app, its hook and what the hook started to be gone after the delete' })
})
