'use strict'

// The daemon's /proc readers against real processes (lib/shared/proc-read.js, readAdopted in
// lib/shared/proc-children.js): a child's environ larger than the reader's buffer, a seq_file
// whose first read comes back short, and a real orphan in the list of the ancestor that adopted
// it. Every process started here is killed by pid.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const { spawn, execFileSync } = require('node:child_process')
const { readProcFile, SIZE } = require('../../lib/shared/proc-read')
const { readAdopted } = require('../../lib/shared/proc-children')
const { waitFor } = require('../helpers/wait')

const text = (n, seed = 'x') => Array.from({ length: n }, (_, i) => String.fromCharCode(33 + ((i * 7 + seed.charCodeAt(0)) % 90))).join('')

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

test('real processes: this process\'s child, and an orphan in the list of the ancestor that adopted it', { skip: !fs.existsSync(`/proc/${process.pid}/task/${process.pid}/children`) }, async (t) => {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' })
  t.after(() => child.kill('SIGKILL'))
  assert.ok((await readAdopted(process.pid)).includes(child.pid))
  // sh starts sleep in the background and exits: sleep is handed to a reaper (init or a subreaper)
  const orphan = Number(execFileSync('sh', ['-c', 'sleep 60 >/dev/null 2>&1 & echo $!'], { encoding: 'utf8' }).trim())
  t.after(() => { try { process.kill(orphan, 'SIGKILL') } catch {} })
  let reaper = 0
  await waitFor(() => {
    reaper = Number(fs.readFileSync(`/proc/${orphan}/stat`, 'latin1').split(') ')[1].split(' ')[1])
    return reaper !== 0
  }, { timeout: 5000 })
  assert.ok((await readAdopted(reaper)).includes(orphan), `orphan ${orphan} in what ${reaper} adopted`)
})
