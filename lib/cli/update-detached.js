'use strict'

// `xpm update` asked by an app of the same home (a deploy agent under xpm): the update stops
// every app, that one too, and with it its whole tree, this CLI included, before it could start
// the new daemon. So the update runs in a process of its own that belongs to no app: started
// through an intermediate that exits at once (its parent link to the app is gone: a stop reads
// parent links), in a session of its own (not in the app's process group), and without xpm's
// per-process variables (no tree tag: lib/shared/internal-env.js). Its output goes to
// XPM_HOME/update.log; this CLI relays it if it lives to see the end.

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { XpmError } = require('../shared/errors')
const { waitPidGone } = require('../shared/pid')
const { parseTreeTag, homeId, TREE_VAR } = require('../shared/tree-tag')
const { withoutInternals } = require('../shared/internal-env')

const BIN = path.join(__dirname, '..', '..', 'bin', 'xpm')
const PARENT_VAR = 'XPM_UPDATE_DETACHED' // the intermediate's pid, in the detached update's environment
const WORKER_WAIT = 10 * 60 * 1000

// The intermediate: starts the update detached, prints its pid, exits.
const INTERMEDIATE = `const c = require('node:child_process').spawn(process.execPath, [process.argv[1], 'update'],
  { detached: true, stdio: ['ignore', 2, 2], env: { ...process.env, ${PARENT_VAR}: String(process.pid) } })
process.stdout.write(String(c.pid)); c.unref()`

// The name of the app of this home the CLI runs inside, or null.
function appAround (home, env) {
  const tag = parseTreeTag(env[TREE_VAR])
  return tag && tag.home === homeId(home) ? tag.app : null
}

async function updateDetached (ctx, paths, app) {
  const { io } = ctx
  const log = path.join(paths.home, 'update.log')
  const { openAppendNoFollowSync } = require('../shared/safe-fs')
  fs.rmSync(log, { force: true })
  const fd = openAppendNoFollowSync(log)
  let pid = 0
  try {
    const child = spawn(process.execPath, ['-e', INTERMEDIATE, BIN], { stdio: ['ignore', 'pipe', fd], env: withoutInternals(io.env), cwd: paths.home })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d) => { out += d })
    const [code] = await require('node:events').once(child, 'exit')
    pid = Number(out)
    if (code !== 0 || !pid) throw new XpmError('XPM_ERR_START_FAILED', `could not start the update in a process of its own (exit code ${code}); see ${log}`)
  } finally {
    fs.closeSync(fd)
  }
  io.stdout.write(`[xpm] this command runs inside app "${app}", which the update stops: the update goes on in a process of its own (pid ${pid}), its output in ${log}\n`)
  await waitPidGone(pid, { timeoutMs: WORKER_WAIT, pollMs: 200 })
  const text = fs.readFileSync(log, 'utf8')
  io.stdout.write(text)
  // the update's own failure, as the CLI prints every error: "xpm: <message> [XPM_ERR_…]"
  const failed = /^xpm: .* \[(XPM_ERR_[A-Z_]+)\]$/m.exec(text)
  if (!failed) return
  const message = `the update (pid ${pid}) failed; see above or ${log}`
  try {
    throw new XpmError(failed[1], message)
  } catch (err) {
    throw err.code === failed[1] ? err : new XpmError('XPM_ERR_START_FAILED', message) // a code this version does not know
  }
}

// In the detached update: its intermediate has exited (so no app's process is its parent)
// before anything is stopped.
async function untilDetached (env) {
  const parent = Number(env[PARENT_VAR])
  if (!parent) return
  const deadline = Date.now() + 10000
  while (process.ppid === parent && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
}

module.exports = { appAround, updateDetached, untilDetached, PARENT_VAR }
