'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { tempDir } = require('../helpers/tmp')
const { listScripts, OUTSIDE } = require('../../bench/pm2-e2e/scripts')

// A tree shaped as PM2's checkout: test/e2e.sh and the scripts under test/e2e/.
function pm2Tree (files) {
  const src = tempDir('xpm-pm2-e2e-')
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(src, file)), { recursive: true })
    fs.writeFileSync(path.join(src, file), text)
  }
  return src
}

test('listScripts: the runTest lines of e2e.sh; with all, every other script after them, but include.sh, lock files and those that reach outside', () => {
  const src = pm2Tree({
    'test/e2e.sh': 'runTest ./test/e2e/cli/reload.sh\n#runTest ./test/e2e/internals/promise.sh\n  runTest ./test/e2e/logs/log-json.sh\n',
    'test/e2e/include.sh': '',
    'test/e2e/cli/reload.sh': '',
    'test/e2e/cli/.#reload.sh': '',
    'test/e2e/cli/mjs.sh': '',
    'test/e2e/internals/promise.sh': '',
    'test/e2e/logs/log-json.sh': '',
    'test/e2e/binaries/pm2-dev.sh': 'pkill -f Daemon\n',
    'test/e2e/docker.sh': '',
    'test/e2e/cli/README.md': ''
  })
  assert.deepEqual(listScripts(src), ['./test/e2e/cli/reload.sh', './test/e2e/logs/log-json.sh'])
  assert.deepEqual(listScripts(src, null, true), [
    './test/e2e/cli/reload.sh', './test/e2e/logs/log-json.sh', './test/e2e/cli/mjs.sh', './test/e2e/internals/promise.sh'
  ])
  assert.deepEqual(listScripts(src, ['promise', 'reload'], true), ['./test/e2e/cli/reload.sh', './test/e2e/internals/promise.sh'])
  assert.ok(OUTSIDE['binaries/pm2-dev.sh'] && OUTSIDE['docker.sh'])
})
