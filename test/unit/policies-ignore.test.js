'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { createIgnore, globMatcher } = require('../../daemon/policies/ignore')

const cwd = '/srv/app'

test('node_modules, .git, log files, editor scratch files and XPM_HOME are always ignored', () => {
  const ignored = createIgnore({ cwd, home: '/home/u/.xpm' })
  for (const p of ['/srv/app/node_modules/x/index.js', '/srv/app/.git/HEAD', '/srv/app/server.log', '/srv/app/logs/out.log.3',
    '/srv/app/out.log.gz', '/srv/app/.index.js.swp', '/srv/app/index.js~', '/srv/app/4913', '/srv/app/.#index.js', '/home/u/.xpm/logs/a-out.txt']) {
    assert.equal(ignored(p), true, p)
  }
  for (const p of ['/srv/app/index.js', '/srv/app/lib/logger.js', '/srv/app/catalog/x.json', '/srv/app']) {
    assert.equal(ignored(p), false, p)
  }
})

test('ignore_watch: a bare name matches any segment, a path is relative to cwd, an absolute path is itself', () => {
  const ignored = createIgnore({ cwd, patterns: ['tmp', '*.csv', 'public/uploads', 'src/**/*.gen.js', '/srv/app/data/', './cache'] })
  assert.equal(ignored('/srv/app/tmp'), true)
  assert.equal(ignored('/srv/app/a/tmp/b.js'), true)
  assert.equal(ignored('/srv/app/report.csv'), true)
  assert.equal(ignored('/srv/app/public/uploads/cat.png'), true)
  assert.equal(ignored('/srv/app/public/index.html'), false)
  assert.equal(ignored('/srv/app/src/a/b/x.gen.js'), true)
  assert.equal(ignored('/srv/app/src/x.gen.js'), true)
  assert.equal(ignored('/srv/app/src/x.js'), false)
  assert.equal(ignored('/srv/app/data/db.json'), true)
  assert.equal(ignored('/srv/app/database.js'), false)
  assert.equal(ignored('/srv/app/cache/k'), true)
  assert.equal(ignored('/srv/app/tmpfile.js'), false)
})

test('the app\'s own log files and their rotated copies are ignored, whatever their names', () => {
  const ignored = createIgnore({ cwd, logFiles: ['/srv/app/out.txt'] })
  assert.equal(ignored('/srv/app/out.txt'), true)
  assert.equal(ignored('/srv/app/out.txt.1'), true)
  assert.equal(ignored('/srv/app/out.js'), false)
})

test('globs: * and ? stay within a segment, ** crosses them', () => {
  assert.ok(globMatcher('*.js')('a.js'))
  assert.ok(!globMatcher('*.js')('a/b.js'))
  assert.ok(globMatcher('a/**/c')('a/c'))
  assert.ok(globMatcher('a/**/c')('a/b/b/c'))
  assert.ok(globMatcher('v?.txt')('v1.txt'))
  assert.ok(!globMatcher('a+b.js')('aab.js'))
})

test('ignore_watch globs as PM2 writes them: braces, classes, an escaped dot (picomatch)', () => {
  const ignored = createIgnore({ cwd, patterns: ['*.{csv,tsv}', 'logs/[0-9]*.txt', '\\.git', '\\.cache', '.env*'] })
  for (const p of ['/srv/app/a.csv', '/srv/app/data/b.tsv', '/srv/app/logs/2024-01.txt', '/srv/app/.cache/x', '/srv/app/sub/.git/HEAD', '/srv/app/.env.local']) {
    assert.equal(ignored(p), true, p)
  }
  for (const p of ['/srv/app/a.json', '/srv/app/logs/today.txt', '/srv/app/xcache/y', '/srv/app/env.js']) {
    assert.equal(ignored(p), false, p)
  }
})
