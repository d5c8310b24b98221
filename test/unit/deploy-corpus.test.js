'use strict'

// `xpm deploy <file> <env> --dry-run` on five real ecosystem files with a `deploy` section
// (test/fixtures/ecosystems/deploy-corpus, sources in its README): each environment of each file
// parses, and names per host exactly the command lines a release and a setup would run — kept as
// snapshots next to the files (XPM_UPDATE_SNAPSHOTS=1 rewrites them; review the diff). The apps'
// scripts are not there: a deploy does not need them locally. No ssh runs (PATH is empty).
const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { inProcessRunner } = require('../helpers/cli')

const DIR = path.join(__dirname, '..', 'fixtures', 'ecosystems', 'deploy-corpus')
const SNAPSHOTS = path.join(DIR, 'dry-run')
const run = inProcessRunner({ PATH: '/nonexistent', HOME: '/home/me' })

const FILES = fs.readdirSync(DIR).filter((f) => /\.(js|json)$/.test(f)).sort()

function deploySection (file) {
  const full = path.join(DIR, file)
  if (file.endsWith('.json')) return JSON.parse(fs.readFileSync(full, 'utf8')).deploy
  delete require.cache[require.resolve(full)]
  return require(full).deploy
}

test('the corpus holds five files, none with its apps\' scripts beside it', () => {
  assert.equal(FILES.length, 5)
  for (const script of ['index.js', 'app.js', 'server.js', 'package.json']) assert.equal(fs.existsSync(path.join(DIR, script)), false)
})

for (const file of FILES) {
  test(`${file}: every environment's release and setup, per host, as the snapshot says; env values masked`, async () => {
    const section = deploySection(file)
    const envs = Object.keys(section)
    assert.ok(envs.length > 0)
    let text = ''
    for (const env of envs) {
      for (const verb of [[], ['setup']]) {
        const args = ['deploy', file, env, ...verb, '--dry-run']
        const r = await run(args, { cwd: DIR })
        assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`)
        assert.equal(r.stderr, '')
        text += `$ xpm ${args.join(' ')}\n${r.stdout}\n`
        const hosts = [].concat(section[env].host)
        const prefixes = new Set(r.stdout.split('\n').filter((l) => l.startsWith('[') && !l.startsWith('[xpm]')).map((l) => l.slice(1, l.indexOf(']'))))
        assert.deepEqual([...prefixes], hosts.map((h) => `${section[env].user}@${h}`))
        assertMasked(r.stdout, section[env].env)
      }
    }
    const snapshot = path.join(SNAPSHOTS, `${file}.txt`)
    if (process.env.XPM_UPDATE_SNAPSHOTS === '1') fs.writeFileSync(snapshot, text)
    assert.equal(text, fs.readFileSync(snapshot, 'utf8'))
  })
}

// Each hook's environment is shown as `export NAME=***` for every key of the file's `env`, and
// no value appears after an `=` anywhere in what is printed.
function assertMasked (stdout, env) {
  const names = Object.keys(env || {})
  const shown = names.length ? `"export ${names.map((n) => `${n}=***`).join(' ')}"` : '":"'
  for (const line of stdout.split('\n').filter((l) => l.includes(' <<< '))) assert.equal(line.split(' <<< ')[1], shown)
  for (const [name, value] of Object.entries(env || {})) assert.ok(!stdout.includes(`${name}=${value}`), `${name}'s value is printed`)
}
