'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { watchTree } = require('../../daemon/policies/tree-watcher')
const { createIgnore } = require('../../daemon/policies/ignore')
const { tempDir } = require('../helpers/tmp')

// Real fs.watch on a temporary folder (fast: no process is started).
// Polls until an entry of `seen` matches, with a deadline.
function waitForChange (seen, predicate, ms = 3000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no matching change in ${ms} ms; saw ${JSON.stringify(seen)}`)), ms)
    const check = () => {
      if (seen.some(predicate)) { clearTimeout(timer); resolve() } else setTimeout(check, 10)
    }
    check()
  })
}

test('folders are watched recursively, new folders too; ignored folders are never entered', async (t) => {
  const dir = tempDir('xpm-tree-')
  fs.mkdirSync(path.join(dir, 'src'))
  fs.mkdirSync(path.join(dir, 'node_modules', 'dep'), { recursive: true })
  const seen = []
  const tree = watchTree([dir], { ignored: createIgnore({ cwd: dir }), onChange: (f) => seen.push(path.relative(dir, f)) })
  t.after(() => { tree.close(); fs.rmSync(dir, { recursive: true, force: true }) })
  assert.equal(await tree.ready, 2, 'the root and src, not node_modules')

  fs.writeFileSync(path.join(dir, 'src', 'a.js'), '1')
  await waitForChange(seen, (f) => f === 'src/a.js')
  fs.mkdirSync(path.join(dir, 'lib'))
  await waitForChange(seen, (f) => f === 'lib')
  await waitForChange([tree], () => tree.size === 3) // the new folder's own watch is set up asynchronously
  fs.writeFileSync(path.join(dir, 'lib', 'b.js'), '1')
  await waitForChange(seen, (f) => f === 'lib/b.js')
  fs.writeFileSync(path.join(dir, 'node_modules', 'dep', 'c.js'), '1')
  fs.writeFileSync(path.join(dir, 'server.log'), '1')
  fs.writeFileSync(path.join(dir, 'last.js'), '1')
  await waitForChange(seen, (f) => f === 'last.js')
  assert.ok(!seen.some((f) => f.startsWith('node_modules') || f.endsWith('.log')), JSON.stringify(seen))
})

test('a file root reports only that file', async (t) => {
  const dir = tempDir('xpm-tree-')
  fs.writeFileSync(path.join(dir, 'config.json'), '{}')
  const seen = []
  const tree = watchTree([path.join(dir, 'config.json')], { onChange: (f) => seen.push(path.basename(f)) })
  t.after(() => { tree.close(); fs.rmSync(dir, { recursive: true, force: true }) })
  await tree.ready
  fs.writeFileSync(path.join(dir, 'other.js'), '1')
  fs.writeFileSync(path.join(dir, 'config.json'), '{"a":1}')
  await waitForChange(seen, (f) => f === 'config.json')
  assert.deepEqual([...new Set(seen)], ['config.json'])
})
