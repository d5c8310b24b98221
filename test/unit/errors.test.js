'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { CODES, XpmError, exitCodeFor } = require('../../lib/shared/errors')

test('docs/errors.md lists exactly the codes of the catalogue, with their exit status', () => {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'errors.md'), 'utf8')
  const documented = [...doc.matchAll(/^\| `(XPM_ERR_[A-Z_]+)` \| (\d) \|/gm)].map((m) => [m[1], Number(m[2])])
  assert.deepEqual(Object.fromEntries(documented), Object.fromEntries(Object.entries(CODES).map(([k, v]) => [k, v.exit])))
})

test('XpmError carries its code, exit status and survives the wire', () => {
  const err = new XpmError('XPM_ERR_APP_NOT_FOUND', 'No app "x"', { details: { target: 'x' } })
  assert.equal(err.exitCode, 1)
  const back = XpmError.from(JSON.parse(JSON.stringify(err)))
  assert.equal(back.code, 'XPM_ERR_APP_NOT_FOUND')
  assert.equal(back.message, 'No app "x"')
  assert.equal(exitCodeFor(new XpmError('XPM_ERR_CONFIG_INVALID', 'bad')), 2)
  assert.equal(exitCodeFor(new Error('plain')), 1)
  assert.throws(() => new XpmError('XPM_ERR_NOPE', 'x'), TypeError)
})
