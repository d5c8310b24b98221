'use strict'

// `xpm why` on a signal xpm did not send: only SIGKILL may be the OOM killer.
const test = require('node:test')
const assert = require('node:assert/strict')
const { lastEventLine } = require('../../lib/cli/render-why')

const killed = (signal) => lastEventLine({ event: 'exit', app: 'api', instance: 0, pid: 42, signal, code: null, cause: { by: 'outside', kind: 'killed', detail: signal }, at: 0 }, { now: 0 })

test('a SIGABRT is the process aborting itself, not the OOM killer; SIGKILL may be', () => {
  assert.match(killed('SIGABRT'), /killed by signal SIGABRT, not sent by xpm \(it aborted itself: a failed assertion/)
  assert.doesNotMatch(killed('SIGABRT'), /OOM/)
  assert.match(killed('SIGKILL'), /OOM killer/)
  assert.match(killed('SIGSEGV'), /crashed in native code/)
  assert.match(killed('SIGTERM'), /\(someone's kill\?\)/)
})
