'use strict'

const fs = require('node:fs')
const { nodeHasReusePort } = require('../worker/reuse-port')

// reuse_port without net.ipv4.tcp_migrate_req = 1: when a reload retires a worker, the kernel
// resets the new connections already queued on that worker's listening socket (measured:
// bench/measures/reuse-port-reload.js). xpm still starts the app, and says so at start, once per
// command (docs/reload.md#reuse_port). The CLI and the daemon share the network namespace the
// setting belongs to, in every set-up xpm documents.
const SETTING = '/proc/sys/net/ipv4/tcp_migrate_req'

function migrateReqProblem (readSetting = () => fs.readFileSync(SETTING, 'utf8')) {
  let value
  try {
    value = readSetting().trim()
  } catch {
    return 'this kernel has no net.ipv4.tcp_migrate_req (Linux 5.14 or later has it)'
  }
  return value === '1' ? null : `net.ipv4.tcp_migrate_req is ${value}`
}

function reusePortWarnings (specs, { readSetting } = {}) {
  const names = specs.filter((s) => s.reusePort === true).map((s) => s.name)
  // where the daemon refuses reuse_port (XPM_ERR_REUSE_PORT_UNSUPPORTED), its error says it all
  if (!names.length || process.platform !== 'linux' || !nodeHasReusePort()) return []
  const problem = migrateReqProblem(readSetting)
  if (!problem) return []
  return [`reuse_port (${names.join(', ')}): ${problem}, so each reload resets the new connections queued on the worker it retires; ` +
    'set it to 1 (`sysctl -w net.ipv4.tcp_migrate_req=1`, and in /etc/sysctl.d/ to keep it) — see docs/reload.md#reuse_port']
}

module.exports = { reusePortWarnings, migrateReqProblem }
