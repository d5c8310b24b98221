'use strict'

// Preloaded into every unit test file by scripts/test.js: the unit suite starts no process (no
// Node, no shell, no getent), so it stays fast and runs anywhere. A test that needs a real
// process belongs in test/integration; one that needs a lookup injects it (e.g. resolveUser's
// `lookup`).
const childProcess = require('node:child_process')

for (const name of ['spawn', 'spawnSync', 'fork', 'exec', 'execSync', 'execFile', 'execFileSync']) {
  childProcess[name] = (command) => {
    throw new Error(`a unit test started a process (child_process.${name} ${command}): it belongs in test/integration, or inject what it runs`)
  }
}
