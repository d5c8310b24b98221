'use strict'

// The test sets of scripts/test.js: CI runs `versions` on Node 22 and 24 (.ci/run), so the
// OpenTelemetry files, slow as they are, pass on every supported Node (issue 36).
const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { SLOW, EVERY_NODE, plan } = require('../../scripts/test')

const names = (files) => files.map((f) => path.basename(f))

test('the versions set is the fast set and the slow files of EVERY_NODE, nothing else', () => {
  const fast = plan('fast')
  const versions = plan('versions')
  assert.deepEqual(versions.unit, fast.unit)
  assert.deepEqual(names(versions.integration).sort(), [...names(fast.integration), ...EVERY_NODE].sort())
  for (const file of ['otel-traces.test.js', 'otel-daemon.test.js', 'otel-grpc.test.js']) {
    assert.ok(Object.hasOwn(SLOW, file) && EVERY_NODE.includes(file), `${file} runs on every Node`)
  }
})

test('CI runs the versions set on its extra Node versions', () => {
  const ci = require('node:fs').readFileSync(path.join(__dirname, '..', '..', '.ci', 'run'), 'utf8')
  assert.match(ci, /"\$bin" scripts\/test\.js versions;/)
})
