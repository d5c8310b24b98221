'use strict'

// lib/shared/proc-read.js: the daemon's reader of small /proc files. Real files in a temporary
// folder (small, at the buffer's edge, larger than the buffer), real /proc files of this process
// and of a child with an environment larger than the buffer.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { readProcFile, SIZE, SLACK, pooled } = require('../../lib/shared/proc-read')
const { tempDir } = require('../helpers/tmp')
const { waitFor } = require('../helpers/wait')

const dir = tempDir('xpm-proc-read-')
const text = (n, seed = 'x') => Array.from({ length: n }, (_, i) => String.fromCharCode(33 + ((i * 7 + seed.charCodeAt(0)) % 90))).join('')
const file = (name, content) => { const f = path.join(dir, name); fs.writeFileSync(f, content, 'latin1'); return f }
const openFds = () => fs.readdirSync('/proc/self/fd').length

test('small files, empty files and latin1 bytes are read whole', async () => {
  assert.equal(await readProcFile(file('small', '12 345 ')), '12 345 ')
  assert.equal(await readProcFile(file('empty', '')), '')
  const bytes = Buffer.from([0x41, 0x00, 0xe9, 0xff, 0x29, 0x0a])
  fs.writeFileSync(path.join(dir, 'bytes'), bytes)
  assert.deepEqual(Buffer.from(await readProcFile(path.join(dir, 'bytes')), 'latin1'), bytes)
})

test('files at the edge of the buffer and larger than it are read whole', async () => {
  for (const n of [SIZE - SLACK, SIZE - SLACK + 1, SIZE - 1, SIZE, SIZE + 1, 3 * SIZE + 17, 300 * 1024]) {
    const want = text(n, String(n))
    assert.equal(await readProcFile(file(`f${n}`, want)), want, `${n} bytes`)
  }
  // a first buffer smaller than the file: every chunk after it
  const want = text(5000, 'q')
  assert.equal(await readProcFile(file('tiny-buffer', want), { size: 16 }), want)
})

test('many reads at once keep each its own text, and every fd is closed', async () => {
  const files = Array.from({ length: 40 }, (_, i) => [file(`c${i}`, text(100 + i * 150, String(i))), text(100 + i * 150, String(i))])
  const before = openFds()
  const got = await Promise.all(files.map(([f]) => readProcFile(f)))
  assert.deepEqual(got, files.map(([, want]) => want))
  assert.equal(openFds(), before)
  assert.ok(pooled() <= 16, 'the pool of buffers is bounded')
})

test('a missing file rejects with its fs error and leaves no fd open', async () => {
  const before = openFds()
  await assert.rejects(readProcFile(path.join(dir, 'nope')), { code: 'ENOENT' })
  await assert.rejects(readProcFile(dir), { code: 'EISDIR' })
  assert.equal(openFds(), before)
})

test('real /proc files: this process\'s stat, and a child\'s environ larger than the buffer', async (t) => {
  const stat = await readProcFile(`/proc/${process.pid}/stat`)
  assert.match(stat, new RegExp(`^${process.pid} \\(`))
  assert.equal((await readProcFile('/proc/sys/kernel/pid_max')).trim(), fs.readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim())
  const big = text(3 * SIZE, 'e')
  const child = spawn('sleep', ['60'], { env: { XPM_READ_TEST: big }, stdio: 'ignore' })
  t.after(() => child.kill('SIGKILL'))
  await waitFor(() => fs.existsSync(`/proc/${child.pid}/environ`) &&
    fs.readFileSync(`/proc/${child.pid}/environ`, 'latin1').includes('XPM_READ_TEST'), { timeout: 5000 })
  const environ = await readProcFile(`/proc/${child.pid}/environ`)
  assert.equal(environ, fs.readFileSync(`/proc/${child.pid}/environ`, 'latin1'))
  assert.ok(environ.includes(`XPM_READ_TEST=${big}\0`))
})

// /proc/<pid>/maps is a seq_file of ~100-byte records: its first read stops short of the buffer
// where the next record does not fit the kernel's page, before the end of the file.
test('a seq_file larger than the buffer, whose first read comes back short, is read whole', async (t) => {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' })
  t.after(() => child.kill('SIGKILL'))
  const file = `/proc/${child.pid}/maps`
  const sync = () => fs.readFileSync(file, 'latin1')
  let got = null
  await waitFor(async () => {
    const before = sync()
    if (before.length <= SIZE || !before.includes('node')) return false
    got = await readProcFile(file)
    return sync() === before && got === before // an idle process's maps, unchanged meanwhile
  }, { timeout: 10000, interval: 200, message: `${file} read whole` })
  assert.ok(got.length > SIZE)
})
