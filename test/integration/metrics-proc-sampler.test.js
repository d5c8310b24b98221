'use strict'

const { test } = require('node:test')
const { waitFor } = require('../helpers/wait')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { cpuPercent, parseVmRss, parsePs, createProcSampler, detectPageSize } = require('../../daemon/metrics/proc-sampler')
const { parseStat } = require('../../lib/shared/proc-stat')
const { tempDir } = require('../helpers/tmp')

// Fields 14/15 (utime, stime) = 250/50 and 22 (starttime) = 98765; comm has a space and a ')'.
const STAT = '4242 (my app) x) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 50 0 0 20 0 11 0 98765 1000000 5000 18446744073709551615'

test('cpuPercent: ticks used over wall time, as percent of one core', () => {
  assert.equal(cpuPercent(1000, 1100, 1000, 100), 100)
  assert.equal(cpuPercent(1000, 1050, 1000, 100), 50)
  assert.equal(cpuPercent(0, 400, 2000, 100), 200)
  assert.equal(cpuPercent(0, 250, 1000, 250), 100)
  assert.equal(cpuPercent(5, 5, 1000), 0)
})

test('cpuPercent guards against no elapsed time and a counter going backwards', () => {
  assert.equal(cpuPercent(0, 100, 0), 0)
  assert.equal(cpuPercent(200, 100, 1000), 0)
})

test('parseStat (lib/shared/proc-stat.js) counts fields from the last parenthesis; ticks, start time, rss (field 24) in pages', () => {
  assert.deepEqual(parseStat(STAT), { state: 'S', ppid: 1, pgrp: 4242, flags: 4194560, startTime: '98765', ticks: 300, rssPages: 5000 })
  assert.equal(parseStat('garbage'), null)
})

test('parseVmRss reads kB as bytes, 0 when absent', () => {
  assert.equal(parseVmRss('Name:\tnode\nVmRSS:\t   51234 kB\nThreads: 11\n'), 51234 * 1024)
  assert.equal(parseVmRss('Name:\tzombie\n'), 0)
})

test('parsePs reads pcpu and rss', () => {
  assert.deepEqual(parsePs('  12.5 20480\n'), { cpu: 12.5, rss: 20480 * 1024 })
  assert.equal(parsePs(''), null)
})

test('the Linux sampler reads one file per pid from a fake /proc, and null for a gone pid', async (t) => {
  const root = tempDir('xpm-proc-')
  t.after(() => fs.rmSync(root, { recursive: true, force: true }))
  fs.mkdirSync(path.join(root, '4242'))
  fs.writeFileSync(path.join(root, '4242', 'stat'), STAT)
  const sampler = createProcSampler({ platform: 'linux', procRoot: root, pageSize: 4096 })
  assert.deepEqual(await sampler.sample(4242), { ticks: 300, startTime: '98765', rss: 5000 * 4096 })
  // A stat line longer than the first read is read again in full.
  fs.writeFileSync(path.join(root, '4242', 'stat'), STAT.replace('(my app) x)', `(${'x'.repeat(2000)})`))
  assert.deepEqual(await sampler.sample(4242), { ticks: 300, startTime: '98765', rss: 5000 * 4096 })
  assert.equal(await sampler.sample(4243), null)
})

test('the sampler of this platform reads this process; its RSS is what the OS reports', async () => {
  const sample = await createProcSampler().sample(process.pid)
  assert.ok(sample.rss > 10 * 1024 * 1024)
  if (process.platform === 'linux') {
    assert.ok([4096, 16384, 65536].includes(await detectPageSize()))
    const vmRss = parseVmRss(fs.readFileSync('/proc/self/status', 'utf8'))
    assert.ok(Math.abs(sample.rss - vmRss) < 4 * 1024 * 1024, `stat ${sample.rss} vs VmRSS ${vmRss}`)
  }
  assert.ok(sample.ticks !== undefined || sample.cpu !== undefined)
})

test('the ps fallback reads this process', { skip: process.platform === 'win32' }, async () => {
  const sample = await createProcSampler({ platform: 'darwin' }).sample(process.pid)
  assert.ok(sample.rss > 10 * 1024 * 1024)
  assert.equal(typeof sample.cpu, 'number')
})

test('issue 27: the Linux sampler keeps each pid\'s stat file open and reads it again; a gone process reads as null and its file is closed; forget() closes it', async () => {
  const { spawn } = require('node:child_process')
  const { once } = require('node:events')
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' })
  try {
    const sampler = createProcSampler()
    // a process that has just exec'd may read as no memory yet for an instant
    const first = await waitFor(async () => { const s = await sampler.sample(child.pid); return s && s.rss > 0 && s }, { interval: 5, message: 'the child\'s first figures' })
    assert.equal(sampler.openFiles, 1)
    const second = await sampler.sample(child.pid)
    assert.equal(second.startTime, first.startTime)
    assert.equal(sampler.openFiles, 1, 'read again, not opened again')
    // This process: forget() closes its file.
    await sampler.sample(process.pid)
    assert.equal(sampler.openFiles, 2)
    sampler.forget(process.pid)
    assert.equal(sampler.openFiles, 1)
    child.kill('SIGKILL')
    await once(child, 'exit')
    assert.equal(await sampler.sample(child.pid), null, 'a gone (reaped) process')
    assert.equal(sampler.openFiles, 0)
  } finally {
    child.kill('SIGKILL')
  }
})
