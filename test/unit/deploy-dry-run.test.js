'use strict'

// `xpm deploy <env> --dry-run` on deploy sections in the shapes real ecosystem files have (one
// host or several, a key, per-environment env, a computed repo, YAML, package.json): each is
// parsed and names, per host, the command lines it would run — through the real CLI, which runs
// nothing (no ssh is spawned: PATH is empty).
const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { inProcessRunner } = require('../helpers/cli')
const { tempDir } = require('../helpers/tmp')

const run = inProcessRunner({ PATH: '/nonexistent', HOME: '/home/me' })

const FILES = {
  'ecosystem.config.js': `const pkg = { name: 'shop', repository: { url: 'git@github.com:acme/shop.git' } }
module.exports = {
  apps: [{ name: 'shop', script: 'server.js' }, { script: 'worker.js' }],
  deploy: {
    production: { user: 'node', host: ['10.0.0.1', '10.0.0.2'], ref: 'origin/main', repo: pkg.repository.url, path: '/srv/' + pkg.name,
      'pre-deploy-local': 'echo local', 'post-deploy': 'npm ci && xpm reload ecosystem.config.js --env production', env: { NODE_ENV: 'production', API_KEY: 'k-123' } },
    staging: { user: 'node', host: 'staging.example', ref: 'origin/develop', repo: pkg.repository.url, path: '/srv/staging', ssh_options: 'StrictHostKeyChecking=no' }
  }
}
`,
  'aws.json': JSON.stringify({ apps: [{ name: 'api', script: 'api.js' }], deploy: { prod: { user: 'ubuntu', host: 'ec2.example', key: '~/.ssh/aws.pem', port: '2222', ref: 'origin/master', repo: 'https://example.com/x.git', path: '/home/ubuntu/x', 'post-deploy': 'npm install && pm2 startOrRestart aws.json' } } }),
  'process.yml': 'apps:\n  - name: bot\n    script: bot.js\ndeploy:\n  production:\n    user: deploy\n    host: bot.example\n    ref: origin/main\n    repo: git@example.com:bot.git\n    path: /var/www/bot\n    fetch: fast\n    pre-setup: apt-get update\n    post-setup: ls\n',
  'package.json': JSON.stringify({ name: 'p', deploy: { live: { user: 'www', host: ['a.example', 'b.example', 'c.example'], ref: 'origin/main', repo: 'git@example.com:p.git', path: '/var/p' } } })
}

function project () {
  const dir = tempDir('xpm-deploy-dry-')
  for (const [name, text] of Object.entries(FILES)) fs.writeFileSync(path.join(dir, name), text)
  return dir
}

test('a two-host target with hooks and a secret env, from ecosystem.config.js (found without naming it)', async () => {
  const cwd = project()
  const r = await run(['deploy', 'production', '--dry-run'], { cwd })
  assert.equal(r.code, 0, r.stderr)
  const lines = r.stdout.trim().split('\n')
  assert.equal(lines[0], '[xpm] deploy production --dry-run: release of origin/main on 2 host(s), 1 at a time; nothing is run')
  assert.deepEqual(lines.filter((l) => l.startsWith('[node@10.0.0.2]')).map((l) => l.split(':')[0].split('] ')[1]),
    ['pre-deploy-local', 'head', 'fetch', 'reset', 'link', 'post-deploy', 'health', '  expects online', 'log'])
  assert.ok(lines.includes('[node@10.0.0.1] pre-deploy-local: (local) echo local'))
  assert.ok(lines.includes('[node@10.0.0.1] post-deploy: ssh -o ConnectTimeout=10 node@10.0.0.1 \'cd /srv/shop/current && export SHARED=/srv/shop/shared && eval "$(cat)" && npm ci && xpm reload ecosystem.config.js --env production\' <<< "export NODE_ENV=*** API_KEY=***"'))
  assert.ok(lines.includes('[node@10.0.0.1]   expects online: shop, worker'))
  assert.doesNotMatch(r.stdout, /k-123/)
  const staging = await run(['deploy', 'staging', 'setup', '--dry-run'], { cwd })
  assert.match(staging.stdout, /\[node@staging\.example\] clone: ssh -o StrictHostKeyChecking=no -o ConnectTimeout=10 node@staging\.example 'if \[ -d \/srv\/staging\/source\/\.git \]; then echo '\\''source already cloned; kept'\\''; else git clone --branch develop git@github\.com:acme\/shop\.git \/srv\/staging\/source; fi'/)
})

test('a key and a port (JSON), fast fetch and setup hooks (YAML), package.json\'s section with three hosts in parallel', async () => {
  const cwd = project()
  const json = await run(['deploy', 'aws.json', 'prod', 'revert', '2', '--dry-run'], { cwd })
  assert.equal(json.code, 0, json.stderr)
  assert.match(json.stdout, /^\[ubuntu@ec2\.example\] find release \(<commit>\): ssh -o ConnectTimeout=10 -p 2222 -i \/home\/me\/\.ssh\/aws\.pem ubuntu@ec2\.example '.*tail -n 3 \/home\/ubuntu\/x\/\.deploys/m)
  assert.match(json.stdout, /\[ubuntu@ec2\.example\] reset: .*git reset --hard .*<commit>/)
  const yml = await run(['deploy', 'process.yml', 'production', 'setup', '--dry-run'], { cwd })
  assert.equal(yml.code, 0, yml.stderr)
  assert.deepEqual(yml.stdout.trim().split('\n').slice(1).map((l) => l.split(':')[0]), ['[deploy@bot.example] pre-setup', '[deploy@bot.example] mkdir', '[deploy@bot.example] clone', '[deploy@bot.example] link', '[deploy@bot.example] post-setup'])
  assert.match(yml.stdout, /git clone --depth=5 --branch main/)
  const pkg = await run(['deploy', 'package.json', 'live', 'exec', 'uptime', '--dry-run'], { cwd })
  assert.equal(pkg.code, 0, pkg.stderr)
  assert.match(pkg.stdout, /^\[xpm\] deploy live --dry-run: exec on 3 host\(s\), 3 at a time; nothing is run\n/)
  assert.equal(pkg.stdout.match(/ exec: ssh /g).length, 3)
})

test('no file, no section, no such environment: exit 2 with XPM_ERR_DEPLOY_CONFIG; no environment: the help', async () => {
  const empty = tempDir('xpm-deploy-none-')
  const none = await run(['deploy', 'production'], { cwd: empty })
  assert.equal(none.code, 2)
  assert.match(none.stderr, /no deployment file here .*\[XPM_ERR_DEPLOY_CONFIG\]/)
  const cwd = project()
  const missing = await run(['deploy', 'nope'], { cwd })
  assert.equal(missing.code, 2)
  assert.match(missing.stderr, /^xpm: nope environment is not defined in ecosystem\.config\.js \(deploy has: production, staging\) \[XPM_ERR_DEPLOY_CONFIG\]/)
  const help = await run(['deploy'], { cwd })
  assert.equal(help.code, 0)
  assert.match(help.stdout, /Usage: xpm deploy \[file\] <env> \[command\]/)
})
