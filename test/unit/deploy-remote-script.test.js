'use strict'

// The host-side scripts of `xpm deploy` run by a real POSIX sh (Debian's dash: no bash-isms)
// on a folder laid out as pm2 deploy lays it out, with a release log written by pm2 deploy
// (bare commits) and by xpm (commit, time, who).
const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { execFileSync, spawnSync } = require('node:child_process')
const sh = require('../../lib/cli/deploy/remote-script')
const { tempDir } = require('../helpers/tmp')

const run = (script, env = {}) => spawnSync('sh', ['-c', script], { encoding: 'utf8', env: { ...process.env, ...env } })

test('quoting: words, paths with spaces and quotes, ~/ on the remote home', () => {
  assert.equal(sh.q('origin/main'), 'origin/main')
  assert.equal(sh.q("it's here"), "'it'\\''s here'")
  assert.equal(run(`printf %s ${sh.q("a 'b' $c")}`).stdout, "a 'b' $c")
  assert.equal(run(`printf %s ${sh.p('~/apps/my app', 'current')}`, { HOME: '/h' }).stdout, '/h/apps/my app/current')
  assert.equal(sh.branchOf('origin/feature/x'), 'feature/x')
  assert.equal(sh.branchOf('main'), 'main')
})

test('the env: keys in upper case (pm2 deploy), values kept whole, $VAR expanded, hidden when printed', () => {
  const line = sh.exportEnv({ node_env: 'production', MSG: 'a "quoted" `x` word', P: '/opt/bin:$BASE' })
  assert.equal(run(`${line} && printf '%s|%s|%s' "$NODE_ENV" "$MSG" "$P"`, { BASE: '/usr/bin' }).stdout, 'production|a "quoted" `x` word|/opt/bin:/usr/bin')
  assert.equal(sh.exportEnv({ a: 'secret' }, { secret: true }), 'export A=***')
  assert.equal(sh.exportEnv({}), '')
})

test('the release log: list, previous and the n-th release read pm2 deploy\'s lines and xpm\'s alike', () => {
  const dir = tempDir('xpm-deploy-sh-')
  fs.writeFileSync(path.join(dir, '.deploys'), 'aaaaaaa1\nbbbbbbb2 2026-11-28T10:00:00Z me@laptop\nccccccc3\n')
  assert.equal(run(sh.list(dir)).stdout, '0\tccccccc3\n1\tbbbbbbb2 2026-11-28T10:00:00Z me@laptop\n2\taaaaaaa1\n')
  assert.equal(run(sh.previous(dir)).stdout, 'bbbbbbb2\n')
  assert.equal(run(sh.nthRelease(dir, 1)).stdout, 'bbbbbbb2\n')
  assert.equal(run(sh.nthRelease(dir, 2)).stdout, 'aaaaaaa1\n')
  const tooFar = run(sh.nthRelease(dir, 3))
  assert.equal(tooFar.status, 1)
  assert.match(tooFar.stdout, /only 3 release\(s\) logged/)
  assert.match(run(sh.nthRelease(path.join(dir, 'none'), 1)).stdout, /no release logged/)
})

test('setup, a release and its log on a real git repo, by sh', () => {
  const dir = tempDir('xpm-deploy-sh-')
  const git = (cwd, ...a) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { cwd, encoding: 'utf8' }).trim()
  const bare = path.join(dir, 'repo.git')
  git(dir, 'init', '-q', '--bare', '-b', 'main', bare)
  const work = path.join(dir, 'work')
  git(dir, 'clone', '-q', bare, work)
  fs.writeFileSync(path.join(work, 'a.txt'), '1')
  git(work, 'add', '-A'); git(work, 'commit', '-q', '-m', '1'); git(work, 'push', '-q', 'origin', 'HEAD:main')
  const host = path.join(dir, 'host dir')
  for (const script of [sh.mkdirs(host), sh.clone(host, { repo: `file://${bare}`, ref: 'origin/main', fast: false }), sh.link(host)]) {
    const r = run(script)
    assert.equal(r.status, 0, r.stderr)
  }
  assert.equal(fs.readlinkSync(path.join(host, 'current')), path.join(host, 'source'))
  assert.match(run(sh.clone(host, { repo: 'x', ref: 'origin/main' })).stdout, /already cloned; kept/)
  const first = git(work, 'rev-parse', 'HEAD')
  fs.writeFileSync(path.join(work, 'a.txt'), '2')
  git(work, 'commit', '-qam', '2'); git(work, 'push', '-q', 'origin', 'HEAD:main')
  fs.writeFileSync(path.join(host, 'source', 'a.txt'), 'edited on the host')
  assert.equal(run(sh.fetch(host, {})).status, 0)
  const reset = run(sh.reset(host, 'origin/main'))
  assert.equal(reset.status, 0, reset.stderr)
  assert.match(reset.stdout, /warning: tracked files changed here are discarded:\n M a.txt/)
  assert.equal(fs.readFileSync(path.join(host, 'current', 'a.txt'), 'utf8'), '2')
  const logged = run(sh.logRelease(host, 'me@laptop'))
  assert.equal(logged.stdout.trim(), git(work, 'rev-parse', 'HEAD'))
  assert.match(fs.readFileSync(path.join(host, '.deploys'), 'utf8'), /^[0-9a-f]{40} \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ me@laptop\n$/)
  assert.equal(run(sh.reset(host, first)).status, 0)
  assert.equal(run(sh.current(host)).stdout.trim(), first.slice(0, 7))
  const hooked = run(sh.hook(host, 'printf "%s %s %s" "$PWD" "$SHARED" "$TOKEN"', { token: 't0k' }))
  assert.equal(hooked.stdout, `${path.join(host, 'current')} ${path.join(host, 'shared')} t0k`)
  assert.match(run(sh.reset(host, 'no-such-ref')).stderr, /unknown revision|ambiguous argument/)
})
