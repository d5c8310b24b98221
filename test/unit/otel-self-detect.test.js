'use strict'

// An app that sets up OpenTelemetry itself is left alone by xpm's bootstrap (lib/otel/self-detect.js):
// its Node flags preload @opentelemetry, or its package.json depends on an SDK; the API alone is no sign.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { selfInstrumented } = require('../../lib/otel/self-detect')
const { resourceAttributes } = require('../../lib/otel/resource')
const { tempDir } = require('../helpers/tmp')

function app (deps) {
  const dir = tempDir('xpm-otel-self-')
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'a', version: '1.2.3', dependencies: deps }))
  fs.mkdirSync(path.join(dir, 'src'))
  return dir
}

test('an SDK in package.json, or flags that preload @opentelemetry, mean the app does it itself', () => {
  assert.match(selfInstrumented(app({ '@opentelemetry/sdk-node': '^0.200.0' }), {}, []), /depends on @opentelemetry\/sdk-node/)
  assert.match(selfInstrumented(path.join(app({ '@opentelemetry/auto-instrumentations-node': '*' }), 'src'), {}, []), /auto-instrumentations-node/, 'the nearest package.json above the cwd')
  assert.match(selfInstrumented(app({}), { NODE_OPTIONS: '--require @opentelemetry/auto-instrumentations-node/register' }, []), /Node flags/)
  assert.match(selfInstrumented(app({}), {}, ['--import', '@opentelemetry/auto-instrumentations-node/register']), /Node flags/)
  assert.equal(selfInstrumented(app({ '@opentelemetry/api': '^1.9.0', express: '^5' }), {}, []), null, 'the API alone: xpm\'s SDK serves its spans')
  assert.equal(selfInstrumented(path.join(__dirname, '..', 'fixtures'), {}, []), null, 'xpm\'s own package.json is no app\'s')
})

test('the resource: the app\'s ids from XPM_OTEL, its package.json version, a stable instance id', () => {
  const attrs = resourceAttributes({ XPM_OTEL: JSON.stringify({ app: 'api', id: 7, instance: 1, namespace: 'shop', restarts: 3 }) }, app({}))
  assert.equal(attrs['service.name'], 'api')
  assert.equal(attrs['service.version'], '1.2.3')
  assert.equal(attrs['service.namespace'], 'shop')
  assert.match(attrs['service.instance.id'], /\/api\/1$/)
  assert.deepEqual([attrs['xpm.app'], attrs['xpm.id'], attrs['xpm.instance'], attrs['xpm.restarts']], ['api', 7, 1, 3])
  assert.equal(attrs['process.pid'], process.pid)
  assert.equal(resourceAttributes({ XPM_OTEL: 'not json' }, app({}))['service.name'], 'unknown_service:node')
})
