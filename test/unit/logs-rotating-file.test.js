'use strict'

// App log files go through rotating-file-stream, which opens by name: only in folders nobody
// else can write (daemon/logs/folder-trust.js). Played with chmod on folders of our own, so these
// run as any user; "another user" itself is in test/integration/security.test.js.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const zlib = require('node:zlib')
const { once } = require('node:events')
const { openLogFile, createStream } = require('../../daemon/logs/rotating-file')
const { trustLogFolder } = require('../../daemon/logs/folder-trust')
const { tempDir } = require('../helpers/tmp')

function tmpDir (t) {
  const dir = tempDir('xpm-rfs-')
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

async function writeAll (stream, chunks) {
  for (const c of chunks) stream.write(c)
  stream.end()
  await once(stream, 'finish')
}

test('a log in a folder others can write is refused, naming the folder and the fix; nothing is created', async (t) => {
  const dir = tmpDir(t)
  const shared = path.join(dir, 'shared')
  fs.mkdirSync(shared)
  fs.chmodSync(shared, 0o777)
  await assert.rejects(openLogFile(path.join(shared, 'app.log')), (err) => {
    assert.equal(err.code, 'XPM_ERR_FILE_UNSAFE')
    assert.equal(err.details.folder, shared)
    assert.match(err.message, new RegExp(`its folder ${shared} is writable by its group and every user \\(mode 0777\\).*Fix: \`chmod go-w ${shared}\``))
    return true
  })
  assert.deepEqual(fs.readdirSync(shared), [])

  // sticky does not help the log's own folder: anyone can still add a name there
  fs.chmodSync(shared, 0o1777)
  await assert.rejects(openLogFile(path.join(shared, 'app.log')), { code: 'XPM_ERR_FILE_UNSAFE', message: /mode 1777.*log into a folder only you can write/ })

  // ...but a sticky shared folder above a private one is fine (/tmp/mine/app.log)
  const mine = path.join(shared, 'mine')
  fs.mkdirSync(mine, { mode: 0o700 })
  await trustLogFolder(path.join(mine, 'app.log'))

  // a folder above, writable by others and not sticky, is refused too, and so is a missing
  // folder whose nearest existing parent is shared
  fs.chmodSync(shared, 0o777)
  await assert.rejects(openLogFile(path.join(mine, 'app.log')), { code: 'XPM_ERR_FILE_UNSAFE', message: new RegExp(`${shared}, a folder above it, is writable .* and not sticky`) })
  await assert.rejects(openLogFile(path.join(shared, 'new', 'app.log')), (err) => err.code === 'XPM_ERR_FILE_UNSAFE' && err.details.folder === shared)
  assert.equal(fs.existsSync(path.join(shared, 'new')), false)
})

test('a group-writable folder (0775) passes when its group is the user\'s private group, not otherwise', async (t) => {
  const dir = tmpDir(t)
  const project = path.join(dir, 'project')
  fs.mkdirSync(project)
  fs.chmodSync(project, 0o775) // Ubuntu's umask 002
  const gid = fs.statSync(project).gid
  await trustLogFolder(path.join(project, 'logs', 'app.log'), { privateGid: gid })
  assert.equal(fs.existsSync(path.join(project, 'logs')), true)
  await trustLogFolder(path.join(project, 'app.log'), { privateGid: gid })
  await assert.rejects(trustLogFolder(path.join(project, 'app.log'), { privateGid: null }), { code: 'XPM_ERR_FILE_UNSAFE', message: /is writable by its group \(mode 0775\)/ })
  await assert.rejects(trustLogFolder(path.join(project, 'app.log'), { privateGid: gid + 1 }), { code: 'XPM_ERR_FILE_UNSAFE' })
  // the private group's write bit never excuses every user's
  fs.chmodSync(project, 0o777)
  await assert.rejects(trustLogFolder(path.join(project, 'app.log'), { privateGid: gid }), { code: 'XPM_ERR_FILE_UNSAFE', message: /every user/ })
})

test('a link on the way is only as safe as where it points: the real folder is checked too', async (t) => {
  const dir = tmpDir(t)
  const shared = path.join(dir, 'shared')
  fs.mkdirSync(shared)
  fs.chmodSync(shared, 0o777)
  fs.symlinkSync(shared, path.join(dir, 'logs'))
  await assert.rejects(openLogFile(path.join(dir, 'logs', 'app.log')), (err) => err.code === 'XPM_ERR_FILE_UNSAFE' && err.details.folder === shared)
})

test('missing folders are created (0755 minus the umask) under a trusted one; files get 0666 minus the umask', async (t) => {
  const dir = tmpDir(t)
  const file = path.join(dir, 'a', 'b', 'app.log')
  const previous = process.umask(0o027)
  try {
    const stream = await openLogFile(file, { size: '100B', rotate: 2 })
    await writeAll(stream, ['x'.repeat(120) + '\n', 'y\n'])
  } finally {
    process.umask(previous)
  }
  assert.equal(fs.statSync(path.join(dir, 'a')).mode & 0o777, 0o750)
  assert.equal(fs.statSync(path.join(dir, 'a', 'b')).mode & 0o777, 0o750)
  assert.equal(fs.statSync(file).mode & 0o777, 0o640)
  assert.equal(fs.statSync(file + '.1').mode & 0o777, 0o640)
})

test('classical names by size, gzip for rotated files through zlib (compress: true never reaches the shell)', async (t) => {
  const dir = tmpDir(t)
  const file = path.join(dir, 'out.log')
  const stream = await openLogFile(file, { size: '100B', rotate: 2, compress: 'gzip' })
  stream.exec = () => assert.fail('a shell was run')
  await writeAll(stream, [0, 1, 2, 3, 4].map((i) => `${String(i).repeat(60)}\n`))
  assert.deepEqual(fs.readdirSync(dir).sort(), ['out.log', 'out.log.1.gz', 'out.log.2.gz'])
  assert.equal(zlib.gunzipSync(fs.readFileSync(file + '.1.gz')).toString(), `${'2'.repeat(60)}\n${'3'.repeat(60)}\n`)
  assert.equal(fs.readFileSync(file, 'utf8'), `${'4'.repeat(60)}\n`)

  const other = path.join(dir, 'b.log')
  const legacy = createStream(other, { size: '10B', rotate: 1, compress: true })
  legacy.exec = () => assert.fail('a shell was run')
  await writeAll(legacy, ['0123456789ab\n', 'z\n'])
  assert.equal(zlib.gunzipSync(fs.readFileSync(other + '.1.gz')).toString(), '0123456789ab\n')
})

test('the folder is checked again before each rotation: made shared since, the file stops and is not rotated', async (t) => {
  const dir = tmpDir(t)
  const logs = path.join(dir, 'logs')
  fs.mkdirSync(logs, { mode: 0o755 })
  const file = path.join(logs, 'app.log')
  const stream = await openLogFile(file, { size: '100B', rotate: 3 })
  stream.write('a\n')
  await new Promise((resolve) => stream.write('b\n', resolve))
  fs.chmodSync(logs, 0o777)
  const failed = once(stream, 'error')
  stream.write('x'.repeat(200) + '\n')
  const [err] = await failed
  assert.equal(err.code, 'XPM_ERR_FILE_UNSAFE')
  assert.equal(err.details.folder, logs)
  assert.deepEqual(fs.readdirSync(logs), ['app.log'], 'nothing renamed or created')
})

test('the sink with a refused file: the reason logged once, lines still reach `xpm logs` (ring and subscribers), counted as not written', async (t) => {
  const { createLogSink } = require('../../daemon/logs')
  const { PassThrough } = require('node:stream')
  const { waitFor } = require('../helpers/wait')
  const dir = tmpDir(t)
  const shared = path.join(dir, 'shared')
  fs.mkdirSync(shared)
  fs.chmodSync(shared, 0o777)
  const errors = []
  const logger = { error: (obj, msg) => errors.push(msg), warn () {}, debug () {}, info () {} }
  const sink = createLogSink({ logsDir: dir, logger })
  const seen = []
  sink.subscribe({ names: null, ids: null, streams: new Set(['out']) }, (l) => seen.push(l.line))
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  sink.attach({ spec: { name: 'r', cwd: '/', logs: { outFile: path.join(shared, 'r.log') } }, proc: { id: 0, name: 'r', instance: 0, pid: 1 }, stdout, stderr })
  stdout.end('one\ntwo\n')
  stderr.end()
  await waitFor(() => sink.stats().sources === 0)
  assert.deepEqual((await sink.tail({}, 10)).map((l) => l.line), ['one', 'two'])
  await sink.close()
  assert.deepEqual(seen, ['one', 'two'])
  assert.equal(errors.filter((m) => m.includes(`log file ${path.join(shared, 'r.log')} refused: its folder ${shared}`)).length, 1, errors.join('\n'))
  assert.equal(sink.stats().droppedLines, 2)
  assert.deepEqual(fs.readdirSync(shared), [])
})
