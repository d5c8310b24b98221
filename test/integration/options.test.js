'use strict'

// The effect of app options that no other test file owns, through a real daemon.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, freePort, httpGet, fixture, waitFor, isAlive } = require('../helpers/xpm')

test('args, cwd, node_args, exec_mode fork with instances, out_file/error_file, merge_logs false, log_date_format', async (t) => {
  const h = createHome(t, { inProcess: true })
  const p1 = await freePort()
  const dir = fs.mkdtempSync(path.join(h.home, 'app-'))
  const file = path.join(dir, 'ecosystem.config.js')
  fs.writeFileSync(file, `module.exports = { apps: [
    { name: 'opts', script: ${JSON.stringify(fixture('echo-http.js'))}, args: ['--alpha', 'two words'], cwd: ${JSON.stringify(dir)},
      node_args: '--max-old-space-size=96', env: { PORT: '${p1}' }, out_file: './out.txt', error_file: './err.txt' },
    { name: 'forks', script: ${JSON.stringify(fixture('tick-lines.js'))}, instances: 2, exec_mode: 'fork', merge_logs: false,
      time: true, log_date_format: 'YYYY/MM/DD HH:mm' }
  ] }`)
  const res = await h.run(['start', file])
  assert.equal(res.code, 0, res.stderr)
  const { json } = await httpGet(p1)
  assert.deepEqual(json.argv, ['--alpha', 'two words'])
  assert.equal(fs.realpathSync(json.cwd), fs.realpathSync(dir))
  assert.ok(json.execArgv.includes('--max-old-space-size=96'), json.execArgv.join(' '))
  await waitFor(() => fs.existsSync(path.join(dir, 'out.txt')) && fs.existsSync(path.join(dir, 'err.txt')))

  const forks = (await h.jlist()).filter((p) => p.name === 'forks')
  assert.deepEqual(forks.map((p) => [p.mode, p.instance]), [['fork', 0], ['fork', 1]])
  assert.notEqual(forks[0].pid, forks[1].pid)
  for (const i of [0, 1]) {
    const out = path.join(h.home, 'logs', `forks-out-${i}.log`)
    const lines = await waitFor(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8').split('\n').filter(Boolean).length > 3 && fs.readFileSync(out, 'utf8').split('\n').filter(Boolean))
    for (const line of lines) assert.match(line, /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}: tick \d+$/)
  }

  // CLI arguments override the file's; -f replaces the running app with the new spec
  const again = await h.run(['start', file, '--only', 'opts', '-f', '--', '--beta'])
  assert.equal(again.code, 0, again.stderr)
  assert.deepEqual((await httpGet(p1)).json.argv, ['--beta'])
})

test('stop lets an in-flight request finish (disconnect first); kill_timeout bounds an app that ignores SIGINT', async (t) => {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  assert.equal((await h.run(['start', fixture('slow-response.js'), '-i', '1', '--name', 'slow', '--kill-timeout', '2s'], { env: { PORT: String(port), IGNORE_SIGINT: '1', SLOW_MS: '800' } })).code, 0)
  const [p] = await h.jlist()
  const inflight = httpGet(port)
  const out = path.join(h.home, 'logs', 'slow-out-0.log') // cluster mode: a file per instance, as PM2
  await waitFor(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8').includes('request received'), { message: 'the request to reach the worker' })
  const started = Date.now()
  const stop = await h.run(['stop', 'slow'])
  const took = Date.now() - started
  assert.equal(stop.code, 0, stop.stderr)
  const answer = await inflight
  assert.equal(answer.status, 200)
  assert.equal(answer.json.done, true)
  assert.ok(!isAlive(p.pid))
  assert.ok(took >= 1500 && took < 6000, `stop took ${took} ms with kill_timeout 2s`)
  const [after] = await h.jlist()
  assert.equal(after.status, 'stopped')
  assert.equal(after.lastExit.signal, 'SIGKILL')
})
