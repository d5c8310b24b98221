'use strict'

// `xpm deploy` for real: a real sshd on loopback (test/helpers/sshd.js), a real bare git repo
// (file://), real hosts = several `path`s on this machine behind that sshd, each with its own
// XPM_HOME (a real daemon started by the host's post-deploy), and an app that serves HTTP.
const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const http = require('node:http')
const { execFileSync, spawn } = require('node:child_process')
const { sshdMissing, startSshd } = require('../helpers/sshd')
const { createHome, runXpm } = require('../helpers/xpm')
const { freePort, waitFor } = require('../helpers/wait')
const { startLoad } = require('../helpers/load')
const { tempDir } = require('../helpers/tmp')

const ROOT = path.join(__dirname, '..', '..')
const skip = sshdMissing() || false
const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim()

// The app: answers its version; v-crash exits at boot on a host whose env sets CRASH.
const server = (version) => `'use strict'
if (process.env.CRASH && ${JSON.stringify(version)}.endsWith('crash')) { console.error('boom at boot'); process.exit(1) }
require('node:http').createServer((req, res) => res.end(${JSON.stringify(version)})).listen(Number(process.env.PORT), '127.0.0.1')
`

let sshd
before(async () => {
  // VERBOSE: sshd logs each login, which the first test counts
  if (!skip) sshd = await startSshd(null, { logLevel: 'VERBOSE' })
})
after(async () => { if (sshd) await sshd.stop() })
process.once('exit', () => { if (sshd) try { process.kill(sshd.pid, 'SIGKILL') } catch {} })

// A project: a bare repo, a working clone (the folder `xpm deploy` runs in), `hosts` host
// entries (each a path, an XPM_HOME and an app port of its own), and commit(version).
async function project (t, { hosts = 2, hostEnv = () => ({}), extraHosts = [], app = {} } = {}) {
  const dir = tempDir('xpm-deploy-')
  const bare = path.join(dir, 'repo.git')
  git(dir, 'init', '-q', '--bare', '-b', 'main', bare)
  const work = path.join(dir, 'work')
  git(dir, 'clone', '-q', bare, work)
  git(work, 'checkout', '-q', '-b', 'main')
  const entries = []
  const ports = []
  for (let i = 1; i <= hosts; i++) {
    const home = createHome(t)
    const port = await freePort()
    ports.push(port)
    entries.push({ host: '127.0.0.1', name: `h${i}`, port: sshd.port, path: path.join(dir, `host${i}`), env: { XPM_HOME: home.home, PORT: String(port), ...hostEnv(i) } })
  }
  const file = {
    apps: [{ name: 'web', script: 'server.js', ...app }],
    deploy: {
      production: {
        host: [...entries, ...extraHosts],
        ref: 'origin/main',
        repo: `file://${bare}`,
        path: path.join(dir, 'unused'),
        env: { PATH: `${path.join(ROOT, 'bin')}:${path.dirname(process.execPath)}:$PATH`, SECRET_TOKEN: 'do-not-print-me' },
        'post-deploy': 'xpm startOrReload ecosystem.config.js --env production'
      }
    }
  }
  fs.writeFileSync(path.join(work, 'ecosystem.config.js'), `module.exports = ${JSON.stringify(file, null, 2)}\n`)
  const commit = (version) => {
    fs.writeFileSync(path.join(work, 'server.js'), server(version))
    git(work, 'add', '-A')
    git(work, 'commit', '-q', '-m', version)
    git(work, 'push', '-q', 'origin', 'main')
    return git(work, 'rev-parse', 'HEAD')
  }
  const deploy = (...args) => runXpm(['deploy', ...args], { cwd: work, env: { ...process.env, XPM_SSH: sshd.sshCommand, FORCE_COLOR: '0' }, timeout: 120000 })
  return { dir, work, entries, ports, commit, deploy }
}

function get (port) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, agent: false }, (res) => {
      let body = ''
      res.on('data', (d) => { body += d })
      res.on('end', () => resolve(body))
    }).on('error', reject)
  })
}

const logins = () => (sshd.log().match(/Accepted publickey/g) || []).length

const ok = (r) => assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`)

test('setup, then a release that serves HTTP on every host, a second one under load with no failed request, and revert 1', { skip }, async (t) => {
  const p = await project(t, { app: { instances: 2, exec_mode: 'cluster' } })
  const v1 = p.commit('v1')
  const setup = await p.deploy('production', 'setup')
  ok(setup)
  for (const e of p.entries) {
    assert.equal(fs.readlinkSync(path.join(e.path, 'current')), path.join(e.path, 'source'))
    assert.ok(fs.statSync(path.join(e.path, 'shared', 'logs')).isDirectory())
  }
  const loginsBefore = logins()
  const first = await p.deploy('production')
  ok(first)
  // the steps rode a shared ssh connection: one login per host entry at most (both entries are
  // one address, user and port: their first steps may race to open the shared connection, and
  // the loser opens its own), where a login per step made about 14
  const made = logins() - loginsBefore
  assert.ok(made >= 1 && made <= 2, `${made} logins\n${sshd.log()}`)
  assert.match(first.stdout, /\[h1\] ○ post-deploy `xpm startOrReload ecosystem.config.js --env production`/)
  assert.match(first.stdout, /\[h2\] ○ health: 1\/1 app\(s\) online \(web\)/)
  assert.doesNotMatch(first.stdout + first.stderr, /do-not-print-me/)
  for (const port of p.ports) assert.equal(await get(port), 'v1')
  assert.equal(fs.readFileSync(path.join(p.entries[0].path, '.deploys'), 'utf8').split(' ')[0], v1)

  p.commit('v2')
  const loads = p.ports.map((port) => startLoad(port, { concurrency: 2 }))
  const second = await p.deploy('production', 'update')
  const stats = await Promise.all(loads.map((l) => l.stop()))
  ok(second)
  for (const port of p.ports) assert.equal(await get(port), 'v2')
  for (const s of stats) {
    assert.ok(s.ok > 0)
    assert.equal(s.failed, 0, JSON.stringify(s.errors))
  }

  const back = await p.deploy('production', 'revert', '1')
  ok(back)
  for (const port of p.ports) assert.equal(await get(port), 'v1')
  const curr = await p.deploy('production', 'curr')
  ok(curr)
  assert.equal(curr.stdout, `[h1] ${v1.slice(0, 7)}\n[h2] ${v1.slice(0, 7)}\n`)

  const status = await p.deploy('production', 'status')
  ok(status)
  assert.match(status.stdout, new RegExp(`h1 .*${v1.slice(0, 7)}.*1/1 app\\(s\\) online`))
})

test('a release whose app crashes at boot on host 2 of 3: hosts 1-2 go back, host 3 is never touched, exit 1', { skip }, async (t) => {
  const p = await project(t, { hosts: 3, hostEnv: (i) => (i === 2 ? { CRASH: '1' } : {}) })
  const v1 = p.commit('v1')
  ok(await p.deploy('production', 'setup'))
  ok(await p.deploy('production'))
  p.commit('v2-crash')
  const r = await p.deploy('production', '--health-timeout', '2')
  assert.equal(r.code, 1, r.stdout + r.stderr)
  assert.match(r.stderr, /deploy production \(origin\/main\) failed on h2 \[XPM_ERR_DEPLOY_FAILED\]\n/)
  assert.match(r.stderr, /h2: post-deploy failed — post-deploy exited with 1\n(.*\n)* {2}\| {3}boom at boot\n/)
  assert.match(r.stderr, /reverted to their previous release: h1, h2/)
  assert.match(r.stderr, /not deployed \(the rollout stopped\): h3/)
  assert.match(r.stdout, /h3 .*not started/)
  for (const port of p.ports) assert.equal(await get(port), 'v1')
  assert.equal(git(path.join(p.entries[2].path, 'source'), 'rev-parse', 'HEAD'), v1)
  // the rolled-back release is not in the logs: `revert 1` never goes back to it
  const logged = (e) => fs.readFileSync(path.join(e.path, '.deploys'), 'utf8').trim().split('\n').map((l) => l.split(' ')[0])
  assert.deepEqual(p.entries.map(logged), [[v1], [v1], [v1]])
})

test('an unreachable host is named with the step and the reason', { skip }, async (t) => {
  const closed = await freePort()
  const p = await project(t, { hosts: 1, extraHosts: [{ host: '127.0.0.1', name: 'gone', port: closed, path: '/nonexistent/xpm-deploy' }] })
  p.commit('v1')
  const r = await p.deploy('production', 'setup')
  assert.equal(r.code, 1)
  assert.match(r.stderr, new RegExp(`failed on gone \\[XPM_ERR_DEPLOY_FAILED\\]\\ngone: mkdir failed — host unreachable: ssh could not connect to 127.0.0.1 port ${closed}`))
  assert.match(r.stdout, /h1 +│ ok/)
})

test('--dry-run prints each host\'s commands, hides the env\'s values and runs nothing', { skip }, async (t) => {
  const p = await project(t, { hosts: 1 })
  p.commit('v1')
  const r = await p.deploy('production', '--dry-run')
  ok(r)
  const e = p.entries[0]
  const esc = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const line = `[h1] post-deploy: ${sshd.sshCommand} -o ConnectTimeout=10 -p ${sshd.port} 127.0.0.1 'cd ${e.path}/current && export SHARED=${e.path}/shared && eval "$(cat)" && xpm startOrReload ecosystem.config.js --env production' <<< "export PATH=*** SECRET_TOKEN=*** XPM_HOME=*** PORT=***"`
  assert.match(r.stdout, new RegExp(`^${esc(line)}$`, 'm'))
  assert.doesNotMatch(r.stdout, /do-not-print-me/)
  assert.equal(fs.existsSync(e.path), false)
})

test('a host laid out by pm2 deploy is released by xpm, and pm2 deploy\'s readers read xpm\'s log', { skip }, async (t) => {
  const p = await project(t, { hosts: 1 })
  const v1 = p.commit('v1')
  const dir = p.entries[0].path
  // what pm2 deploy's setup and a release of it leave: its own commands, run by sh
  execFileSync('sh', ['-c', [
    `mkdir -p ${dir}/shared/logs ${dir}/shared/pids ${dir}/source`,
    `git clone -q --branch main file://${p.dir}/repo.git ${dir}/source`,
    `ln -sfn ${dir}/source ${dir}/current`,
    `cd ${dir}/source && git fetch --all --tags -q && git reset -q --hard origin/main`,
    `cd ${dir}/source && echo \`git rev-parse HEAD\` >> ${dir}/.deploys`
  ].join(' && ')])
  const v2 = p.commit('v2')
  ok(await p.deploy('production'))
  assert.equal(await get(p.ports[0]), 'v2')
  const prev = await p.deploy('production', 'prev')
  assert.equal(prev.stdout, `${v1}\n`)
  // pm2 deploy's `prev` and `curr`, on the log xpm appended to
  const pm2Prev = execFileSync('sh', ['-c', `cat ${dir}/.deploys | tail -n 2 | head -n 1 | cut -d ' ' -f 1`], { encoding: 'utf8' })
  assert.equal(pm2Prev, `${v1}\n`)
  const pm2Last = execFileSync('sh', ['-c', `cat ${dir}/.deploys | tail -n 1 | cut -d ' ' -f 1`], { encoding: 'utf8' })
  assert.equal(pm2Last, `${v2}\n`)
  ok(await p.deploy('production', 'revert', '1'))
  assert.equal(await get(p.ports[0]), 'v1')
})

test('--no-revert: a failing post-deploy leaves the host on the new commit, exit 1 names host and step', { skip }, async (t) => {
  const p = await project(t, { hosts: 1 })
  p.commit('v1')
  ok(await p.deploy('production', 'setup'))
  ok(await p.deploy('production'))
  const v2 = p.commit('v2')
  const file = path.join(p.work, 'ecosystem.config.js')
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"post-deploy": "', '"post-deploy": "echo migrating; exit 3; '))
  const r = await p.deploy('production', '--no-revert', '--force')
  assert.equal(r.code, 1, r.stdout + r.stderr)
  assert.match(r.stderr, /h1: post-deploy failed — post-deploy exited with 3\n {2}\| migrating\n/)
  assert.match(r.stdout, /h1 +│ failed +│ [0-9a-f]{7} +│ .*left on the failed release \(--no-revert\)/)
  assert.equal(git(path.join(p.entries[0].path, 'source'), 'rev-parse', 'HEAD'), v2)
  assert.equal(await get(p.ports[0]), 'v1', 'the app was not reloaded')
})

test('no ssh on this machine: the error says so, with the host and the step', async () => {
  const dir = tempDir('xpm-deploy-nossh-')
  fs.writeFileSync(path.join(dir, 'ecosystem.json'), JSON.stringify({ apps: [], deploy: { prod: { host: 'h.example', repo: 'r', ref: 'origin/main', path: '/srv/x' } } }))
  const r = await runXpm(['deploy', 'prod', 'curr'], { cwd: dir, env: { ...process.env, PATH: path.join(dir, 'empty'), XPM_SSH: '' } })
  assert.equal(r.code, 1, r.stderr)
  assert.match(r.stderr, /^xpm: deploy prod current failed on h\.example \[XPM_ERR_DEPLOY_FAILED\]\nh\.example: current failed — ssh is not installed on this machine \(or not on PATH\)\n/)
})

test('Ctrl-C during post-deploy: the host goes back to its release, exit 1 says it was interrupted', { skip }, async (t) => {
  const p = await project(t, { hosts: 1 })
  p.commit('v1')
  ok(await p.deploy('production', 'setup'))
  ok(await p.deploy('production'))
  const file = path.join(p.work, 'ecosystem.config.js')
  // v2's post-deploy takes a while (a marker file in v2 only), v1's does not
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"post-deploy": "', '"post-deploy": "if [ -f slow ]; then echo slow; sleep 5; fi; '))
  fs.writeFileSync(path.join(p.work, 'slow'), '')
  p.commit('v2')
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'xpm'), 'deploy', 'production'], { cwd: p.work, env: { ...process.env, XPM_SSH: sshd.sshCommand } })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => { out += d })
  child.stderr.on('data', (d) => { err += d })
  const exited = new Promise((resolve) => child.on('exit', resolve))
  await waitFor(() => out.includes('[h1]   slow'), { timeout: 60000, message: 'the slow post-deploy' })
  process.kill(child.pid, 'SIGINT')
  assert.equal(await exited, 1, out + err)
  assert.match(err, /deploy: interrupted/)
  assert.match(err, /h1: post-deploy failed — interrupted \(Ctrl-C\)/)
  assert.match(out, /h1 +│ failed, reverted/)
  assert.equal(await get(p.ports[0]), 'v1')
})

test('ssh_options reach the system\'s ssh: the test\'s key logs in, another key is refused and named', { skip }, async (t) => {
  const dir = tempDir('xpm-deploy-keys-')
  const wrong = path.join(dir, 'wrong_key')
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', wrong])
  const options = (key) => [`IdentityFile=${key}`, 'IdentitiesOnly=yes', `UserKnownHostsFile=${path.join(dir, 'known_hosts')}`, 'StrictHostKeyChecking=no', 'BatchMode=yes']
  const hosts = [
    { host: '127.0.0.1', name: 'good', port: sshd.port, path: path.join(dir, 'good'), ssh_options: options(sshd.key) },
    { host: '127.0.0.1', name: 'bad', port: sshd.port, path: path.join(dir, 'bad'), ssh_options: options(wrong) }
  ]
  const p = await project(t, { hosts: 0, extraHosts: hosts })
  p.commit('v1')
  const env = { ...process.env }
  delete env.XPM_SSH
  const r = await runXpm(['deploy', 'production', 'setup'], { cwd: p.work, env, timeout: 60000 })
  assert.equal(r.code, 1, r.stdout + r.stderr)
  assert.match(r.stderr, new RegExp(`failed on bad \\[XPM_ERR_DEPLOY_FAILED\\]\\nbad: mkdir failed — key refused by 127\\.0\\.0\\.1 port ${sshd.port}`))
  assert.match(r.stdout, /good +│ ok/)
  assert.ok(fs.existsSync(path.join(dir, 'good', 'source', 'server.js')))
})
