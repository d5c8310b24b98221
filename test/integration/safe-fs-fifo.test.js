'use strict'

// readPrivateFile on a FIFO: refused at once, never a read that hangs (mkfifo is a spawned tool,
// so this is not a unit test; the rest of lib/shared/safe-fs.js is in test/unit/safe-fs.test.js).
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { readPrivateFile } = require('../../lib/shared/safe-fs')
const { tempDir } = require('../helpers/tmp')

test('readPrivateFile: a FIFO in place of a state file is refused, with no hang', async (t) => {
  const dir = tempDir('xpm-safe-')
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  execFileSync('mkfifo', [path.join(dir, 'fifo.json')])
  await assert.rejects(readPrivateFile(path.join(dir, 'fifo.json')), { code: 'XPM_ERR_FILE_UNSAFE', message: /not a regular file/ })
})
