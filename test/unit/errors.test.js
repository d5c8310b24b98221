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

// One error shape (issue 37): an error xpm makes carries a catalogue code because it is an
// XpmError, never a plain Error with a `code` stuck on (Object.assign(new Error(), { code }),
// err.code = …). Node's own errors (ENOENT…) pass through untouched.
test('every error with a code is an XpmError of the catalogue: no code added to a plain Error (static scan)', () => {
  const root = path.join(__dirname, '..', '..')
  const files = []
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name)
      if (entry.isDirectory()) { if (entry.name !== 'node_modules') walk(rel) } else if (/\.(c?js|mjs)$/.test(entry.name) || dir === 'bin') files.push(rel)
    }
  }
  for (const dir of ['lib', 'daemon', 'bin', 'scripts']) walk(dir)
  const found = []
  for (const file of files) {
    const source = fs.readFileSync(path.join(root, file), 'utf8')
    source.split('\n').forEach((line, i) => {
      const where = `${file}:${i + 1}`
      if (/Object\.assign\(\s*(new \w*Error\b|err\b|error\b)[^;]*\bcode\s*:/.test(line)) found.push(`${where}: a code assigned onto an Error`)
      if (/\b(err|error|e)\.code\s*=[^=]/.test(line) && file !== path.join('lib', 'shared', 'errors.js')) found.push(`${where}: .code written`)
      for (const m of line.matchAll(/new XpmError\(\s*'([A-Z_]+)'/g)) if (!CODES[m[1]]) found.push(`${where}: ${m[1]} is not in the catalogue`)
    })
  }
  assert.ok(files.length > 100, `scanned ${files.length} files`)
  assert.deepEqual(found, [])
})
