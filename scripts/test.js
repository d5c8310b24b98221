'use strict'

// Runs the test files explicitly: on Node 20 `node --test` without arguments would also run
// fixtures, and it does not expand globs.
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..')
const suites = process.argv[2] ? [process.argv[2]] : ['unit', 'integration']
const files = suites.flatMap((suite) => {
  const dir = path.join(root, 'test', suite)
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir).filter((f) => f.endsWith('.test.js')).sort().map((f) => path.join('test', suite, f))
})
const concurrency = process.env.XPM_TEST_CONCURRENCY || '2'
const failuresFile = process.env.XPM_TEST_FAILURES_FILE
const reporters = failuresFile
  ? ['--test-reporter=spec', '--test-reporter-destination=stdout',
      `--test-reporter=${path.join(__dirname, 'failures-reporter.js')}`, `--test-reporter-destination=${failuresFile}`]
  : []
const result = spawnSync(process.execPath, ['--test', `--test-concurrency=${concurrency}`, ...reporters, ...files], { cwd: root, stdio: 'inherit' })
process.exit(result.status ?? 1)
