'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { optionsOf } = require('../../lib/cli/fleet/options')
const { summarize, jsonOf } = require('../../lib/cli/fleet/each-host')
const { XpmError } = require('../../lib/shared/errors')

test('the options of an action, from its named input', () => {
  const opts = { hosts: 'production' }
  assert.equal(optionsOf({}, { targets: ['api'], options: opts }), opts)
  assert.deepEqual(optionsOf({}, undefined), {})
})

test('partial results: failed hosts named once each, then how many; the exit status', () => {
  const lines = []
  const io = { stderr: { write: (s) => lines.push(s) }, printError: (e) => lines.push(`xpm: ${e.message} [${e.code}]\n`) }
  const down = new XpmError('XPM_ERR_HOST_UNREACHABLE', 'h2: the connection closed')
  assert.equal(summarize([{ label: 'h1', code: 0 }, { label: 'h2', code: 1, error: down }, { label: 'h3', code: 0 }], io), 1)
  assert.deepEqual(lines, ['xpm: h2: the connection closed [XPM_ERR_HOST_UNREACHABLE]\n', 'xpm: 1 of 3 hosts failed: h2\n'])
  lines.length = 0
  assert.equal(summarize([{ label: 'h1', code: 0 }], io), 0)
  assert.deepEqual(lines, [])
  const bad = new XpmError('XPM_ERR_BAD_ARGUMENT', 'bad')
  assert.equal(summarize([{ label: 'h1', code: 2, error: bad }, { label: 'h2', code: 2, error: bad }], io), 2, 'the status every host shares')
  assert.equal(summarize([{ label: 'h1', code: 2, error: bad }, { label: 'h2', code: 1, error: down }], io), 1)
  assert.match(lines[0], /^xpm: h1: bad/, 'a message without the host gets it')
})

test('a host\'s part of --json: its output parsed (one document or JSON lines), or its error', () => {
  assert.deepEqual(jsonOf({ label: 'h1', code: 0, out: ['{', '"a": 1', '}'], err: [] }), { host: 'h1', ok: true, result: { a: 1 } })
  assert.deepEqual(jsonOf({ label: 'h1', code: 0, out: ['{"step":1}', '{"step":2}'], err: [] }).result, [{ step: 1 }, { step: 2 }])
  assert.deepEqual(jsonOf({ label: 'h2', code: 1, error: new XpmError('XPM_ERR_APP_NOT_FOUND', 'nope'), out: [], err: [] }),
    { host: 'h2', ok: false, error: { code: 'XPM_ERR_APP_NOT_FOUND', message: 'nope' } })
})

test('a fleet command refuses what only means something here: files, scripts, apps on stdin', () => {
  const { refuseLocalFiles } = require('../../lib/cli/fleet/run')
  const refused = (name, input) => assert.throws(() => refuseLocalFiles(name, {}, [input]), { code: 'XPM_ERR_BAD_ARGUMENT' })
  refused('start', { targets: ['-'], options: {} })
  refused('restart', { targets: ['ecosystem.config.js'], options: {} })
  refused('start', { targets: ['./server.js'], options: {} })
  refuseLocalFiles('restart', {}, [{ targets: ['api', '/^web/', 'all', '3'], options: {} }])
})
