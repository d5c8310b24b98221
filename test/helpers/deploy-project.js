'use strict'

// A small project for the deploy tests that need no xpm daemon on the "host": a bare git repo
// (file://), a working clone (where `xpm deploy` runs), and an ecosystem.config.js whose
// `production` target is one path on this machine behind the test's sshd, written in plain
// pm2 deploy keys (key, port, ssh_options) so `pm2 deploy` reads the same file.
const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { runXpm } = require('./xpm')
const { tempDir } = require('./tmp')

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' }
const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8', env: gitEnv }).trim()

function deployProject (sshd, { postDeploy = 'echo released', files = {} } = {}) {
  const dir = tempDir('xpm-deploy-p-')
  const bare = path.join(dir, 'repo.git')
  git(dir, 'init', '-q', '--bare', '-b', 'main', bare)
  const work = path.join(dir, 'work')
  git(dir, 'clone', '-q', bare, work)
  git(work, 'checkout', '-q', '-b', 'main')
  const hostPath = path.join(dir, 'host')
  const target = {
    host: '127.0.0.1',
    port: String(sshd.port),
    key: sshd.key,
    ssh_options: [`UserKnownHostsFile=${path.join(sshd.dir, 'known_hosts')}`, 'StrictHostKeyChecking=no', 'BatchMode=yes', 'LogLevel=ERROR'],
    ref: 'origin/main',
    repo: `file://${bare}`,
    path: hostPath,
    'post-deploy': postDeploy,
    env: { SECRET_TOKEN: 'do-not-print-me' }
  }
  fs.writeFileSync(path.join(work, 'ecosystem.config.js'), `module.exports = ${JSON.stringify({ apps: [], deploy: { production: target } }, null, 2)}\n`)
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(work, name), text)
  const commit = (version) => {
    fs.writeFileSync(path.join(work, 'VERSION'), `${version}\n`)
    git(work, 'add', '-A')
    git(work, 'commit', '-q', '-m', version)
    git(work, 'push', '-q', 'origin', 'main')
    return git(work, 'rev-parse', 'HEAD')
  }
  const deploy = (...args) => runXpm(['deploy', ...args], { cwd: work, env: { ...process.env, FORCE_COLOR: '0' }, timeout: 60000 })
  const source = path.join(hostPath, 'source')
  return { dir, work, hostPath, source, commit, deploy, head: () => git(source, 'rev-parse', 'HEAD') }
}

module.exports = { deployProject, git }
