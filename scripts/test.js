'use strict'

// Runs the test files explicitly: on Node 20 `node --test` without arguments would also run
// fixtures, and it does not expand globs.
//
//   node scripts/test.js            the fast set: every unit file, and the integration files not in SLOW
//   node scripts/test.js all        every file (CI runs this on one Node version, .ci/run)
//   node scripts/test.js slow       the files in SLOW only
//   node scripts/test.js versions   the fast set and the SLOW files in EVERY_NODE (CI on Node 22, 24)
//   node scripts/test.js unit       every unit file; `integration`: every integration file
//
// Unit files run with test/helpers/no-processes.js preloaded: a unit test that starts a process
// fails (it belongs in test/integration). Several files run at once, XPM_TEST_CONCURRENCY (2).
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

// Integration files that make `npm test` slow, each with why: browsers, sshd, hundreds of
// processes, random schedules, a CLI process per command. `npm run test:all` and CI run them too.
const SLOW = {
  'web.test.js': 'chromium',
  'web-1000.test.js': 'chromium, 1,000 processes',
  'web-env.test.js': 'chromium',
  'web-origin.test.js': 'chromium',
  'web-page.test.js': 'chromium',
  'web-proxy.test.js': 'chromium',
  'web-slow-page.test.js': 'chromium',
  'web-watch.test.js': 'chromium',
  'deploy.test.js': 'sshd and git',
  'deploy-dirty-source.test.js': 'sshd and git',
  'deploy-pm2-compat.test.js': 'sshd, git and PM2',
  'intent.test.js': 'random schedules of commands and daemon crashes',
  'overlap.test.js': 'every pair of overlapping commands on real apps',
  'concurrency.test.js': 'random schedules of concurrent commands',
  'many-apps.test.js': '100 apps',
  'many-processes.test.js': '1,000 processes',
  'scale-under-load.test.js': 'scaling under HTTP load',
  'restart-storms.test.js': 'crash loops',
  'drain-every-stop.test.js': 'HTTP load through every kind of stop',
  'process-trees.test.js': 'process trees of every shape',
  'otel-daemon.test.js': 'the OpenTelemetry SDK and an OTLP receiver',
  'otel-traces.test.js': 'the OpenTelemetry SDK in apps',
  'monit.test.js': 'blessed on a pseudo-terminal',
  'fuzz-socket.test.js': 'random frames and params on a real daemon',
  'prometheus-promtool.test.js': 'promtool',
  'pm2-cli-end-to-end.test.js': 'a CLI process per command',
  'pm2-e2e-start.test.js': 'a CLI process per command',
  'pm2-e2e-dump.test.js': 'a CLI process per command',
  'pm2-e2e-logs.test.js': 'a CLI process per command',
  'pm2-e2e-runtime.test.js': 'xpm-runtime processes',
  'runtime-pid1.test.js': 'xpm-runtime as PID 1',
  'cli-inside-app.test.js': 'CLI processes inside apps',
  'security.test.js': 'another user (root and nobody), a CLI process per command',
  'drain-app-edges.test.js': 'HTTP connections held through every kind of stop, in both modes',
  'handover-stale.test.js': 'daemons replaced by xpm update and killed mid-way',
  'startup.test.js': 'daemons started as the boot unit would',
  'fleet-commands.test.js': 'sshd: three hosts',
  'fleet-connect.test.js': 'sshd: hosts, bridges, a fake remote',
  'fleet-rollout.test.js': 'sshd: rolling reloads under HTTP load on three hosts',
  'web-fleet.test.js': 'chromium and sshd',
  'monit-fleet.test.js': 'blessed on a pseudo-terminal, and sshd',
  'otel-grpc.test.js': 'the OpenTelemetry SDK over gRPC',
  'sweep-candidates.test.js': '200 unrelated processes, and crash loops',
  'state-gap-crash.test.js': 'a daemon stopped and killed mid-write',
  'metrics.test.js': 'CPU figures of busy workers over seconds',
  'daemon-socket.test.js': 'daemons started, locked and killed',
  'endpoint-trust.test.js': 'hundreds of connections held open',
  'agent-metrics.test.js': 'agents reporting over seconds',
  'policies.test.js': 'memory limits, watch and cron restarts waited for'
}

// Slow files that CI still runs on every Node version, not only the machine's: what they cover
// loads code that differs between versions (the OpenTelemetry SDK's instrumentations patch
// Node's http, undici and module loaders, which change from one major to the next).
const EVERY_NODE = ['otel-traces.test.js', 'otel-daemon.test.js', 'otel-grpc.test.js']

const root = path.join(__dirname, '..')
const filesOf = (suite) => {
  const dir = path.join(root, 'test', suite)
  return fs.readdirSync(dir).filter((f) => f.endsWith('.test.js')).sort().map((f) => path.join('test', suite, f))
}
const slow = (file) => Object.hasOwn(SLOW, path.basename(file))

function plan (which = 'fast') {
  const unit = filesOf('unit')
  const integration = filesOf('integration')
  const missing = Object.keys(SLOW).filter((f) => !integration.some((i) => path.basename(i) === f))
  missing.push(...EVERY_NODE.filter((f) => !Object.hasOwn(SLOW, f)))
  if (missing.length) throw new Error(`scripts/test.js: SLOW names files that are not in test/integration: ${missing.join(', ')}`)
  const runs = {
    fast: { unit, integration: integration.filter((f) => !slow(f)) },
    all: { unit, integration },
    slow: { unit: [], integration: integration.filter(slow) },
    versions: { unit, integration: integration.filter((f) => !slow(f) || EVERY_NODE.includes(path.basename(f))) },
    unit: { unit, integration: [] },
    integration: { unit: [], integration }
  }
  if (!runs[which]) throw new Error(`scripts/test.js: no test set "${which}" (fast, all, slow, versions, unit, integration)`)
  return runs[which]
}

function run (files, extra, reporterFile) {
  if (!files.length) return 0
  const concurrency = process.env.XPM_TEST_CONCURRENCY || '2'
  const reporters = reporterFile
    ? ['--test-reporter=spec', '--test-reporter-destination=stdout',
        `--test-reporter=${path.join(__dirname, 'failures-reporter.js')}`, `--test-reporter-destination=${reporterFile}`]
    : []
  const result = spawnSync(process.execPath, [...extra, '--test', `--test-concurrency=${concurrency}`, ...reporters, ...files], { cwd: root, stdio: 'inherit' })
  return result.status ?? 1
}

if (require.main === module) {
  const { unit, integration } = plan(process.argv[2])
  // the failures reporter writes its file anew: each part gets its own, joined afterwards
  const failuresFile = process.env.XPM_TEST_FAILURES_FILE
  const parts = [[unit, ['--require', path.join(root, 'test', 'helpers', 'no-processes.js')]], [integration, []]]
  let status = 0
  parts.forEach(([files, extra], i) => {
    const code = run(files, extra, failuresFile && `${failuresFile}.${i}`)
    if (code !== 0) status = code
  })
  if (failuresFile) {
    const lines = parts.map((_, i) => `${failuresFile}.${i}`).filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f, 'utf8'))
    fs.writeFileSync(failuresFile, lines.join(''))
    parts.forEach((_, i) => fs.rmSync(`${failuresFile}.${i}`, { force: true }))
  }
  process.exit(status)
}

module.exports = { SLOW, EVERY_NODE, plan }
