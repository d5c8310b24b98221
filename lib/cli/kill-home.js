'use strict'

// `xpm kill` when the daemon does not answer on its socket: it crashed (its apps run on,
// orphaned) or it is alive but not answering (stopped with SIGSTOP, its loop blocked). Runs in
// the CLI:
//  1. the daemon is found by its lock (lib/shared/daemon-lock.js: a live lock socket, named after its
//     pid), else by daemon.pid when that pid is an xpm daemon of this home; it gets SIGCONT (in
//     case it is stopped), SIGTERM (its own graceful stop of every app), and SIGKILL when it has
//     not exited by the deadline;
//  2. every process still carrying the home's tree tag (lib/shared/tree-tag.js) is ended: the stop
//     signal of its app (state.json), SIGKILL after its kill_timeout. An app with
//     `treekill: false` loses its own recorded processes only, not what they started (nor,
//     by their XPM_UNTRACKED mark, once the app was deleted);
//  3. the pid files of the apps' processes (XPM_HOME/pids/<name>-<n>.pid, and each app's own
//     pid_file) that name a process no longer running are removed, as the daemon removes them
//     at each exit it sees;
//  4. state.json is marked as a clean shutdown, so the next daemon restores nothing (as after a
//     `kill` the daemon answered).
// → { daemon: { pid, signal } | null, ended: [pid], killed: [pid], survived: [pid], daemonAlive }

const fsp = require('node:fs/promises')
const path = require('node:path')
const { waitPidGone, isAlive } = require('../shared/pid')
const { readProcStat } = require('../shared/proc-stat')
const { endTagged } = require('../shared/tag-scan')
const { parseTreeTag, launchOwner } = require('../shared/tree-tag')

const DAEMON_WAIT = 30000 // SIGTERM → SIGKILL for the daemon (it stops every app meanwhile)

async function killHome (paths, {
  daemonWait = DAEMON_WAIT,
  pollMs = 50,
  kill = (pid, sig) => process.kill(pid, sig),
  readStat = readProcStat,
  findDaemon = () => findDaemonPid(paths),
  findSuccessor = () => findDaemonPid(paths),
  scanner = undefined,
  killWaitMs = undefined
} = {}) {
  const daemon = await findDaemon()
  let daemonAlive = false
  let signal = null
  if (daemon) {
    const stat = await readStat(daemon)
    const same = async () => stat && (await readStat(daemon))?.startTime === stat.startTime
    const send = async (sig) => {
      if (!(await same())) return false
      try { kill(daemon, sig); return true } catch { return false }
    }
    const gone = (ms) => waitPidGone(daemon, { timeoutMs: ms, pollMs, stillThere: same })
    await send('SIGCONT')
    if (await send('SIGTERM')) signal = 'SIGTERM'
    if (!(await gone(daemonWait))) {
      if (await send('SIGKILL')) signal = 'SIGKILL'
      daemonAlive = !(await gone(5000))
    }
  }

  // A command sent during the kill may already have started a new daemon for this home (the CLI
  // waits for the old one to exit, then starts one): its processes are not ours to end.
  const successor = await findSuccessor().catch(() => null)
  const newer = successor && successor !== daemon ? successor : 0
  const state = await readState(paths.stateFile) // after the daemon's exit: what it wrote last
  const specs = new Map((state?.apps || []).filter((a) => a?.spec?.name).map((a) => [a.spec.name, a.spec]))
  const leaders = new Set((state?.processes || []).map((p) => `${p.pid}@${p.startTime}`))
  const report = await endTagged({ home: paths.home }, {
    resume: true,
    exclude: daemon ? [daemon] : [],
    filter: (p) => {
      if (newer && launchOwner(p.launch) === newer) return false
      const spec = specs.get(parseTreeTag(p.tree)?.app)
      return (!p.untracked && spec?.treekill !== false) || leaders.has(`${p.pid}@${p.startTime}`)
    },
    options: (p) => {
      const spec = specs.get(parseTreeTag(p.tree)?.app)
      return { killSignal: spec?.killSignal || 'SIGTERM', ...(Number.isSafeInteger(spec?.killTimeout) ? { killTimeout: spec.killTimeout } : {}) }
    },
    pollMs,
    ...(scanner ? { scanner } : {}),
    ...(killWaitMs !== undefined ? { killWaitMs } : {}),
    kill
  })
  // a zombie (an ended app that init has not reaped yet) is no longer running
  const hasProc = await fsp.access('/proc/self').then(() => true, () => false)
  const alive = async (pid) => isAlive(pid) && (!hasProc || (await readStat(pid)) !== null)
  if (!daemonAlive) await removeStalePidFiles(paths, state, specs, { alive })
  if (state && !state.cleanShutdown && !daemonAlive) await markClean(paths.stateFile, state)
  return {
    daemon: daemon ? { pid: daemon, signal } : null,
    daemonAlive,
    ended: report.signalled.filter((pid) => !report.survived.includes(pid)),
    killed: report.killed,
    survived: report.survived
  }
}

// The daemon of this home that does not answer: the pid its live lock socket is named after,
// else daemon.pid when that process is an xpm daemon started for this home. null: none.
async function findDaemonPid (paths, { probeTimeout = 1000 } = {}) {
  const { probeLock, lockPids } = require('../shared/daemon-lock')
  const holder = await probeLock(paths.home, { timeout: probeTimeout })
  if (holder) {
    holder.close()
    const pid = holder.pid || (await lockPids(paths.home))[0]
    if (pid) return pid
  }
  const pid = Number(await fsp.readFile(paths.pidFile, 'utf8').catch(() => '')) || 0
  if (!pid || pid === process.pid) return null
  const [environ, cmdline] = await Promise.all([
    fsp.readFile(`/proc/${pid}/environ`, 'latin1').catch(() => ''),
    fsp.readFile(`/proc/${pid}/cmdline`, 'latin1').catch(() => '')
  ])
  const daemonOfHome = environ.split('\0').includes(`XPM_HOME=${paths.home}`) && /daemon[/\\]index\.js|xpm-runtime/.test(cmdline)
  return daemonOfHome ? pid : null
}

async function readState (file) {
  try {
    const value = JSON.parse(await fsp.readFile(file, 'utf8'))
    return value && typeof value === 'object' && !Array.isArray(value) ? value : null
  } catch {
    return null
  }
}

// Pid files whose pid no longer runs: every file of XPM_HOME/pids, and an app's own pid_file
// (-<instance> before the extension, as daemon/launchers/app-options.js writes it) while it
// holds the pid its saved process had.
async function removeStalePidFiles (paths, state, specs, { alive }) {
  const files = []
  if (paths.pidsDir) {
    const names = await fsp.readdir(paths.pidsDir).catch(() => [])
    for (const name of names) if (name.endsWith('.pid')) files.push({ file: path.join(paths.pidsDir, name), pid: null })
  }
  for (const p of state?.processes || []) {
    const own = specs.get(p.name)?.pidFile
    if (typeof own !== 'string' || !Number.isSafeInteger(p.instance)) continue
    const ext = path.extname(own)
    files.push({ file: ext ? `${own.slice(0, -ext.length)}-${p.instance}${ext}` : `${own}-${p.instance}`, pid: p.pid })
  }
  await Promise.all(files.map(async ({ file, pid }) => {
    const named = Number(await fsp.readFile(file, 'utf8').catch(() => ''))
    if (!Number.isSafeInteger(named) || named <= 0 || (pid !== null && named !== pid) || (await alive(named))) return
    await fsp.unlink(file).catch(() => {})
  }))
}

// The file as it is, with cleanShutdown set: a later daemon reads it as after a clean `kill`.
async function markClean (file, state) {
  const { writeFileAtomic } = require('../shared/state/atomic-write')
  await writeFileAtomic(file, JSON.stringify({ ...state, cleanShutdown: true }, null, 2) + '\n').catch(() => {})
}

module.exports = { killHome, findDaemonPid }
