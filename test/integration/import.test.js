'use strict'

// `xpm import` of a PM2 setup: a dump.pm2 written in PM2's format (test/fixtures/ecosystems/
// pm2-corpus/dump.pm2.tpl: two cluster instances online, a stopped fork app in a namespace, an
// app whose script is gone, the pm2-logrotate module). The apps start under xpm with the same
// names, instance counts, environment, log paths and states; an ecosystem file that gives the
// same apps is written; PM2's files are left exactly as they were.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, httpGet, freePort, fixture } = require('../helpers/xpm')

const CORPUS = fixture(path.join('ecosystems', 'pm2-corpus'))

// PM2's home with its dump, as `pm2 save` leaves it.
function pm2Setup (root, port) {
  const home = path.join(root, 'pm2-home')
  const logs = path.join(root, 'var-log')
  fs.mkdirSync(path.join(home, 'logs'), { recursive: true })
  fs.mkdirSync(logs)
  const text = fs.readFileSync(path.join(CORPUS, 'dump.pm2.tpl'), 'utf8')
    .replaceAll('__CORPUS__', CORPUS).replaceAll('__PM2_HOME__', home).replaceAll('__PORT__', String(port))
    .replaceAll('__LOGS__', logs).replaceAll('__PATH__', process.env.PATH)
  fs.writeFileSync(path.join(home, 'dump.pm2'), text)
  fs.writeFileSync(path.join(home, 'logs', 'api-error.log'), 'PM2 wrote this\n')
  return { home, logs }
}

// Every file under a folder with its content: PM2's home before and after.
function snapshot (dir) {
  const out = {}
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath ?? entry.path, entry.name)
    out[path.relative(dir, file)] = entry.isFile() ? fs.readFileSync(file, 'utf8') : 'dir'
  }
  return out
}

test('xpm import starts PM2\'s apps as PM2 ran them, writes their ecosystem file, and leaves PM2 alone', async (t) => {
  const h = createHome(t)
  const port = await freePort()
  const root = fs.mkdtempSync(path.join(h.home, 'import-'))
  const { home, logs } = pm2Setup(root, port)
  const before = snapshot(home)
  const work = path.join(root, 'work')
  fs.mkdirSync(work)

  const res = await h.run(['import'], { cwd: work, env: { PM2_HOME: home } })
  assert.equal(res.code, 0, res.stderr)
  assert.match(res.stderr, /read 3 apps \(4 processes\) from .*dump\.pm2/)
  assert.match(res.stderr, /pm2-logrotate: a PM2 module, not carried over/)
  assert.match(res.stderr, /gone: not carried over: script ".*removed-since\.js" in app "gone" does not exist/)
  assert.match(res.stderr, /worker: stopped in PM2: registered stopped/)
  assert.match(res.stderr, /PM2 and its files were not touched/)

  const list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.name, p.namespace, p.mode, p.status]), [
    ['api', 'default', 'cluster', 'online'],
    ['api', 'default', 'cluster', 'online'],
    ['worker', 'jobs', 'fork', 'stopped']
  ])
  const { env, argv } = (await httpGet(port)).json
  assert.deepEqual([env.NODE_ENV, env.PORT, argv], ['production', String(port), ['--color']])
  assert.equal(env.PM2_HOME, home, 'the importing shell\'s variables reach the app, as with any start')
  assert.equal(env.unique_id, undefined, 'PM2\'s own variables do not')

  const show = JSON.parse((await h.run(['show', 'api', '--json'])).stdout)
  const logPaths = show[0].logs
  assert.equal(logPaths.out, path.join(logs, 'api-out.log'), 'a log path the user chose is kept')
  assert.ok(logPaths.err.startsWith(h.home), `PM2's own log file stays PM2's: ${logPaths.err}`)

  // the written file gives the same apps; PM2's home is exactly as it was
  const written = path.join(work, 'ecosystem.config.js')
  assert.match(fs.readFileSync(written, 'utf8'), /Imported from .*dump\.pm2 by `xpm import`/)
  const again = await h.run(['start', written], { env: { PM2_HOME: home } })
  assert.equal(again.code, 0, again.stderr)
  assert.match(again.stdout, /api: restarted/)
  assert.deepEqual(snapshot(home), before)

  // a second import refuses to replace the file
  const twice = await h.run(['import'], { cwd: work, env: { PM2_HOME: home } })
  assert.equal(twice.code, 1)
  assert.match(twice.stderr, /ecosystem\.config\.js already exists; not overwriting it \(give --out <file>, or --force to replace it\) \[XPM_ERR_FILE_EXISTS\]/)
})

test('xpm import --dry-run prints the file; a missing dump says how to make one', async (t) => {
  const h = createHome(t)
  const root = fs.mkdtempSync(path.join(h.home, 'import-'))
  const { home } = pm2Setup(root, 4567)
  const dry = await h.run(['import', path.join(home, 'dump.pm2'), '--dry-run'], { cwd: root })
  assert.equal(dry.code, 0, dry.stderr)
  assert.match(dry.stdout, /^'use strict'\n/)
  assert.match(dry.stdout, /name: "worker",\n\s+namespace: "jobs"/)
  assert.ok(!fs.existsSync(path.join(root, 'ecosystem.config.js')))
  assert.equal(h.daemonPid(), 0, 'nothing started')

  const missing = await h.run(['import'], { cwd: root, env: { PM2_HOME: path.join(root, 'no-pm2') } })
  assert.equal(missing.code, 2)
  assert.match(missing.stderr, /cannot read the PM2 dump .*no-pm2\/dump\.pm2: ENOENT \(run `pm2 save` first/)
})
