'use strict'

// The CLI's commands get named input ({ <positional names>, options, scriptArgs }) built once from
// commander (lib/cli/run.js), and signals from the program's io (issue 37): the real program with
// a fake daemon connection and a fake signal source, so nothing is spawned.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { EventEmitter } = require('node:events')
const { PassThrough } = require('node:stream')
const { createProgram } = require('../../lib/cli/main')
const { tempDir } = require('../helpers/tmp')
const { version } = require('../../package.json')

// A daemon connection that records each request and answers from replies[method].
function fakeClient (replies) {
  const client = new EventEmitter()
  client.hello = { version, pid: 1 }
  client.requests = []
  client.request = async (method, params) => {
    client.requests.push([method, params])
    const reply = replies[method]
    return typeof reply === 'function' ? reply(params) : reply
  }
  client.close = () => {}
  return client
}

function program (replies, { signals = new EventEmitter() } = {}) {
  const home = tempDir()
  const client = fakeClient(replies)
  const stdout = new PassThrough()
  let out = ''
  stdout.on('data', (d) => { out += d })
  const { run } = createProgram({ stdout, stderr: new PassThrough(), connect: async () => client, env: { XPM_HOME: home, PATH: process.env.PATH }, cwd: () => home, signals })
  return { run: (...words) => run(['node', 'xpm', ...words]), client, home, signals, output: () => out }
}

test('positional arguments arrive under their declared names: scale <app> <count>, sendSignal <signal> <targets...>', async () => {
  const p = program({ scale: { name: 'api', from: 1, to: 3, added: [], failures: [] }, sendSignal: { signal: 'SIGUSR2', sent: [{ name: 'api', instance: 0, id: 0, pid: 5 }], skipped: [] } })
  assert.equal(await p.run('scale', 'api', '+2', '--json'), undefined)
  assert.deepEqual(p.client.requests.find(([m]) => m === 'scale')[1], { target: 'api', change: '+2' })
  assert.equal(JSON.parse(p.output()).to, 3)
  assert.equal(await p.run('sendSignal', 'SIGUSR2', 'api', 'web', '--json'), undefined)
  assert.deepEqual(p.client.requests.find(([m]) => m === 'sendSignal')[1], { signal: 'SIGUSR2', target: ['api', 'web'] })
})

test('start: what follows `--` reaches the script as its arguments', async () => {
  const p = program({ start: ({ specs }) => specs.map((s) => ({ name: s.name, action: 'started', failures: [] })), list: [] })
  const script = path.join(p.home, 'app.js')
  fs.writeFileSync(script, '')
  assert.equal(await p.run('start', script, '--json', '--', '--port', '8080'), undefined)
  const [, params] = p.client.requests.find(([m]) => m === 'start')
  assert.deepEqual(params.specs[0].args, ['--port', '8080'])
})

test('logs: Ctrl-C arrives through the program\'s signals, and the command stops listening for them', { timeout: 10000 }, async () => {
  const p = program({ logs: { lines: [], files: [] } })
  const running = p.run('logs', 'api')
  await new Promise((resolve) => {
    const check = () => (p.signals.listenerCount('SIGINT') ? resolve() : setImmediate(check))
    check()
  })
  p.signals.emit('SIGINT')
  assert.equal(await running, 0)
  assert.equal(p.signals.listenerCount('SIGINT') + p.signals.listenerCount('SIGTERM'), 0)
})

test('a command is called as fn(ctx, input), input built once from commander\'s arguments', async () => {
  const { Command } = require('commander')
  const { action } = require('../../lib/cli/run')
  const { createIo } = require('../../lib/cli/io')
  const io = createIo({ stdout: new PassThrough(), stderr: new PassThrough(), connect: async () => fakeClient({}) })
  const inputs = []
  const cli = new Command('xpm').exitOverride()
  cli.command('scale <app> <count>').option('--json').action(action(io, (ctx, input) => { inputs.push(input) }, { scriptArgs: ['--port', '1'] }))
  cli.command('logs [targets...]').action(action(io, (ctx, input) => { inputs.push(input) }))
  await cli.parseAsync(['node', 'xpm', 'scale', 'api', '3', '--json'])
  await cli.parseAsync(['node', 'xpm', 'logs', 'a', 'b'])
  assert.deepEqual(inputs, [
    { app: 'api', count: '3', options: { json: true }, scriptArgs: ['--port', '1'] },
    { targets: ['a', 'b'], options: {}, scriptArgs: [] }
  ])
})
