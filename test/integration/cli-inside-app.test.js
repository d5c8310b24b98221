'use strict'

// Issue 34 §4: a CLI run inside an app (a deploy agent under xpm) hands none of xpm's own
// per-process variables on to the apps it starts or updates, so their probes and hooks are not
// the first app's leftovers, and `xpm update` asked by an app of the home completes.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, fixture } = require('../helpers/xpm')
const { INTERNAL_NAMES, isInternal } = require('../../lib/shared/internal-env')

function resultOf (file) {
  try { return JSON.parse(fs.readFileSync(file, 'utf8')) } catch { return null }
}

test('apps started by a CLI inside an app carry none of its XPM_* internals, and its exits spare their exec probes', async (t) => {
  const h = createHome(t)
  const result = path.join(h.home, 'result.json')
  const eco = path.join(h.home, 'other.config.js')
  fs.writeFileSync(eco, `module.exports = { apps: [{ name: 'other', script: ${JSON.stringify(fixture('idle.js'))},
    liveness: { exec: 'sleep 0.3', interval: '100ms', timeout: '5s', failure_threshold: 1 } }] }`)
  // the deployer looks like a non-Node parent with metrics off: XPM_AGENT_METRICS=0 in its env
  const start = await h.run(['start', fixture('runs-xpm.js'), '--name', 'deployer', '--no-metrics', '--min-uptime', '100',
    '--max-restarts', '1000'], { env: { RUN_XPM_ARGS: JSON.stringify(['start', eco]), RUN_XPM_RESULT: result, RUN_XPM_EXIT_AFTER_MS: '400' } })
  assert.equal(start.code, 0, start.stderr)
  const done = await waitFor(() => resultOf(result), { timeout: 30000, message: 'the deployer\'s xpm start' })
  assert.equal(done.code, 0, done.stderr)

  const shown = JSON.parse((await h.run(['show', 'other', '--json'])).stdout)
  const saved = shown[0].spec.env
  const leaked = Object.keys(saved).filter(isInternal)
  assert.deepEqual(leaked, [], `the saved environment of "other" has ${leaked.join(', ')}`)
  for (const name of ['XPM_TREE', 'XPM_LAUNCH', 'XPM_AGENT_METRICS', 'XPM_ID', 'XPM_APP_NAME']) assert.ok(INTERNAL_NAMES.includes(name), name)
  assert.equal(saved.XPM_HOME, h.home, 'a user setting such as XPM_HOME is kept')

  // the deployer crashes every 400 ms; each exit sweeps its leftovers, which other's probes are not
  const restartsOf = async (name) => (await h.jlist()).find((p) => p.name === name)?.restarts ?? 0
  const before = await restartsOf('deployer')
  await waitFor(async () => (await restartsOf('deployer')) >= before + 5, { timeout: 20000, message: 'five exits of the deployer' })
  assert.equal(await restartsOf('other'), 0, 'other was restarted: its liveness probe was killed as the deployer\'s leftover')
  const env = JSON.parse((await h.run(['env', String(shown[0].id), '--json'])).stdout)
  assert.equal(env.XPM_AGENT_METRICS, undefined, 'other reports metrics: metrics: false was the deployer\'s')
})

test('xpm update asked by an app of the home completes: a new daemon runs and the apps are back', async (t) => {
  const h = createHome(t)
  const result = path.join(h.home, 'result.json')
  const web = await h.run(['start', fixture('idle.js'), '--name', 'web'])
  assert.equal(web.code, 0, web.stderr)
  const oldDaemon = h.daemonPid()
  const start = await h.run(['start', fixture('runs-xpm.js'), '--name', 'deployer'],
    { env: { RUN_XPM_ARGS: JSON.stringify(['update']), RUN_XPM_RESULT: result } })
  assert.equal(start.code, 0, start.stderr)
  await waitFor(() => fs.existsSync(result + '.started'), { timeout: 10000, message: 'the deployer to run xpm update' })
  await waitFor(() => h.daemonPid() !== oldDaemon && h.daemonPid() !== 0, { timeout: 30000, message: 'a new daemon' })
  // the check itself must not start a daemon: read the list only once the new one answers
  const list = await waitFor(async () => {
    const l = await h.jlist()
    return l.length === 2 && l.every((p) => p.status === 'online') && l
  }, { timeout: 30000, message: 'both apps online under the new daemon' })
  assert.deepEqual(list.map((p) => p.name).sort(), ['deployer', 'web'])
  assert.notEqual(h.daemonPid(), oldDaemon)
  await waitFor(() => /replaced by/.test(fs.readFileSync(path.join(h.home, 'update.log'), 'utf8')), { timeout: 30000, message: 'the update\'s own report in update.log' })
})
