'use strict'

// Ecosystem files in TypeScript: loaded with Node's own type stripping where Node has it on
// (22.18+, 23.6+: CI's Node 22 and 24), else a clear error naming the version (CI's Node 20).
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { isEcosystemFile, loadEcosystem } = require('../../lib/shared/config/load-ecosystem')
const { resolveStart } = require('../../lib/shared/config')
const { tempDir } = require('../helpers/tmp')

const strips = Boolean(process.features.typescript)

function files (t) {
  const dir = tempDir('xpm-ts-')
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, 'app.js'), '')
  fs.writeFileSync(path.join(dir, 'ecosystem.config.ts'), `
interface App { name: string; script: string; instances?: number; depends_on?: string[] }
const apps: App[] = [{ name: 'api', script: './app.js', instances: 2 }, { name: 'web', script: './app.js', depends_on: ['api'] }]
module.exports = { apps }
`)
  fs.writeFileSync(path.join(dir, 'ecosystem.config.mts'), `
type App = { name: string, script: string }
export const apps = [{ name: 'esm', script: './app.js' } satisfies App]
`)
  fs.writeFileSync(path.join(dir, 'ecosystem.config.cts'), `
const apps: Array<{ name: string, script: string }> = [{ name: 'cjs', script: './app.js' }]
export = { apps }
`.replace('export = { apps }', 'module.exports = { apps }'))
  return dir
}

test('.ts, .mts and .cts are ecosystem file names', () => {
  for (const name of ['ecosystem.config.ts', 'ecosystem.mts', 'ecosystem.cts', 'app.config.mts', 'ecosystem.ts']) assert.equal(isEcosystemFile(name), true, name)
  for (const name of ['server.ts', 'index.mts', 'app.tsx']) assert.equal(isEcosystemFile(name), false, name)
})

test(`TypeScript ecosystem files load on a Node that strips types (this is Node ${process.version})`, { skip: strips ? false : `Node ${process.version} does not strip types; the next test checks its error` }, async (t) => {
  const dir = files(t)
  assert.deepEqual((await loadEcosystem(path.join(dir, 'ecosystem.config.ts'))).apps.map((a) => a.name), ['api', 'web'])
  assert.deepEqual((await loadEcosystem(path.join(dir, 'ecosystem.config.mts'))).apps.map((a) => a.name), ['esm'])
  assert.deepEqual((await loadEcosystem(path.join(dir, 'ecosystem.config.cts'))).apps.map((a) => a.name), ['cjs'])
  const { specs } = await resolveStart({ target: path.join(dir, 'ecosystem.config.ts'), env: { PATH: process.env.PATH } })
  assert.deepEqual(specs.map((s) => [s.name, s.instances, s.dependsOn]), [['api', 2, []], ['web', 1, ['api']]])
})

test('on a Node without type stripping: XPM_ERR_CONFIG_LOAD saying which Node is needed', { skip: strips ? `Node ${process.version} strips types; the test above loads the files` : false }, async (t) => {
  const dir = files(t)
  for (const name of ['ecosystem.config.ts', 'ecosystem.config.mts', 'ecosystem.config.cts']) {
    await assert.rejects(loadEcosystem(path.join(dir, name)), {
      code: 'XPM_ERR_CONFIG_LOAD',
      message: new RegExp(`${name.replace(/\./g, '\\.')} is TypeScript \\(\\.[cm]?ts\\), which needs a Node that strips types: 22\\.18 or later, or 23\\.6 or later \\(this is Node v`)
    })
  }
})
