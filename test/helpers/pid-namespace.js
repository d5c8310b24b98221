'use strict'

// Whether a test may run something as PID 1 of a PID namespace of its own, as in a container
// (util-linux unshare): { args } to put before the command, or { skip } saying why not.
// withUserNamespace: also through a user namespace when this is not root.
const { spawnSync } = require('node:child_process')

const PID_NS = ['--pid', '--fork', '--mount-proc']

function pidNamespace ({ withUserNamespace = false } = {}) {
  if (process.platform !== 'linux') return { skip: 'needs Linux' }
  if (withUserNamespace) {
    for (const args of [PID_NS, ['--user', '--map-root-user', ...PID_NS]]) {
      const probe = spawnSync('unshare', [...args, 'true'], { encoding: 'utf8' })
      if (!probe.error && probe.status === 0) return { args }
    }
    return { skip: 'unshare cannot create a PID namespace here (not root, user namespaces off, or no util-linux unshare)' }
  }
  if (process.getuid?.() !== 0) return { skip: 'needs root for unshare --pid' }
  const probe = spawnSync('unshare', [...PID_NS, 'true'], { stdio: 'ignore' })
  if (probe.error) return { skip: `unshare is not available (${probe.error.code})` }
  if (probe.status !== 0) return { skip: `unshare --pid --fork --mount-proc fails here (exit ${probe.status})` }
  return { args: PID_NS }
}

module.exports = { pidNamespace }
