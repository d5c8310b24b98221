'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { performance } = require('node:perf_hooks')
const { setTimeout: delay } = require('node:timers/promises')
const { XpmError } = require('../../shared/errors')
const { waitPidGone } = require('../../shared/pid')

// `xpm update`: the running daemon writes its apps to XPM_HOME/update.json, stops them and
// exits; a daemon started from the installed code restores that file on its own. Listening
// sockets are not handed over, so the apps are down in between: the command measures that
// window and prints it.
async function update (ctx) {
  const { version } = require('../../../package.json')
  // the new daemon would be refused a mistyped XPM_METRICS after the old one stopped the apps
  require('../../shared/metrics-address').parseMetricsAddress(ctx.io.env.XPM_METRICS, { from: 'XPM_METRICS' })
  const paths = ctx.io.paths()
  const detached = require('../update-detached')
  const app = detached.appAround(paths.home, ctx.io.env)
  if (app !== null) return detached.updateDetached(ctx, paths, app)
  await detached.untilDetached(ctx.io.env)
  let old = null
  await refuseUnresponsive(paths)
  try {
    old = await ctx.connect()
  } catch (err) {
    if (err.code === 'XPM_ERR_DAEMON_UNREACHABLE') return noDaemonAnswers(paths, version, ctx.io)
    if (err.code !== 'XPM_ERR_PROTOCOL_VERSION') throw err
  }
  const before = old ? { pid: old.hello.pid, version: old.hello.version } : { pid: readPid(paths), version: 'unknown' }
  const handover = old ? await handoverOverSocket(old, paths) : await handoverFromStateFile(paths)
  ctx.io.stdout.write(`[xpm] handing ${handover.apps} app(s) (${handover.online} process(es) online) over to a new daemon\n`)

  const t0 = performance.now()
  await stopDaemon(old, before.pid, paths)
  ctx.client = null
  const tStopped = performance.now()

  const client = await ctx.io.connect({ timeout: 15000 })
  try {
    const tAnswered = performance.now()
    await client.request('ackRestored', {}, { timeout: 5000 }).catch(() => {})
    const deadline = Date.now() + (handover.listenTimeout || 8000) + 30000
    let list = await client.request('list')
    while (countOnline(list) < handover.online && Date.now() < deadline) {
      await delay(50) // polling the new daemon for the restored apps, bounded by the deadline
      list = await client.request('list')
    }
    const tOnline = performance.now()
    const online = countOnline(list)
    ctx.io.stdout.write(`[xpm] daemon ${before.version} (pid ${before.pid}) replaced by ${client.hello.version} (pid ${client.hello.pid})\n`)
    ctx.io.stdout.write(require('../render-list').renderList(list, ctx.io.tableOptions()))
    const ms = (t) => `${Math.round(t)} ms`
    ctx.io.stdout.write(`[xpm] downtime: ${ms(tOnline - t0)} from the moment the old daemon began stopping the apps until ${online}/${handover.online} process(es) were online again ` +
      `(old daemon gone after ${ms(tStopped - t0)}, new daemon answering after ${ms(tAnswered - t0)}); listening sockets are not handed over, so requests in that window fail\n`)
    if (online < handover.online) {
      throw new XpmError('XPM_ERR_START_FAILED', `only ${online} of ${handover.online} process(es) came back online; see \`xpm logs\``)
    }
  } finally {
    client.close()
  }
}

// Nobody answered on the socket. Three different truths, said as they are:
//  - a daemon holds the lock but does not answer (stopped, its loop blocked): nothing can be
//    handed over; fail, and say how to end it;
//  - no daemon, but processes with this home's tree tag run: the daemon crashed and left its
//    apps running. A daemon of the installed version is started now: it ends them before it
//    restores the apps from state.json (daemon/persistence/reap-orphans.js);
//  - nothing runs at all: there is nothing to update.
async function noDaemonAnswers (paths, version, io) {
  await refuseUnresponsive(paths, { any: true })
  const { findTagged } = require('../../shared/tag-scan')
  const orphans = (await findTagged({ home: paths.home })).filter((p) => !p.untracked)
  if (!orphans.length) {
    io.stdout.write(`[xpm] no daemon running and no app process left: nothing to update; the next command starts version ${version}\n`)
    return
  }
  io.stdout.write(`[xpm] no daemon running, but ${orphans.length} process(es) of its apps still run (the daemon crashed); starting version ${version}, which ends them and restores the apps it kept in ${paths.stateFile}\n`)
  const client = await io.connect({ timeout: 15000 })
  try {
    const left = (await findTagged({ home: paths.home })).filter((p) => orphans.some((o) => o.pid === p.pid && o.startTime === p.startTime))
    io.stdout.write(`[xpm] daemon ${client.hello.version} (pid ${client.hello.pid}) started${client.hello.restored ? `, restoring ${client.hello.restored.apps} app(s)` : ''}` +
      `${left.length ? `; ${left.length} old process(es) still ending` : ''}; see \`xpm list\`\n`)
  } finally {
    client.close()
  }
}

// A daemon that holds the lock but does not even answer its lock within 2 s (stopped, its loop
// blocked) is told at once, not after the socket's retries. any: a holder in any state counts.
async function refuseUnresponsive (paths, { any = false, timeout = 2000 } = {}) {
  const lock = require('../../shared/daemon-lock')
  const holder = await lock.probeLock(paths.home, { timeout })
  if (!holder) return
  holder.close()
  if (!any && holder.state !== 'unknown') return
  const pid = holder.pid || (await lock.lockPids(paths.home))[0]
  throw new XpmError('XPM_ERR_DAEMON_UNREACHABLE', `The xpm daemon${pid ? ` (pid ${pid})` : ''} holds ${paths.home} but does not answer; nothing was updated. ` +
    '`xpm kill` ends it and its apps (the next command then starts the installed version)')
}

function countOnline (list) {
  return list.filter((p) => p.status === 'online').length
}

// Step 1, with a daemon that speaks our protocol: it writes update.json itself. A daemon from
// before `prepareUpdate` existed is described from `show all` instead.
async function handoverOverSocket (client, paths) {
  let res
  try {
    res = await client.request('prepareUpdate', {}, { timeout: 30000 })
  } catch (err) {
    if (err.code !== 'XPM_ERR_UNKNOWN_METHOD') throw err
    const details = await client.request('show', { target: 'all' }).catch(() => [])
    const apps = new Map()
    for (const d of details) {
      const app = apps.get(d.spec.name) ?? { spec: d.spec, listens: false, instances: [] }
      app.instances.push({ id: d.id, index: d.instance, desired: ['stopped', 'stopping'].includes(d.status) ? 'stopped' : 'online' })
      apps.set(d.spec.name, app)
    }
    res = await writeHandover(paths, [...apps.values()])
  }
  return res
}

// A daemon that speaks another protocol cannot be asked anything; the state it keeps on disk
// says what it runs.
async function handoverFromStateFile (paths) {
  const { readJsonFile } = require('../../shared/state/atomic-write')
  const { parseState } = require('../../shared/state/state-format')
  const read = await readJsonFile(paths.stateFile)
  const state = read ? parseState(read.value, { file: paths.stateFile }) : { apps: [] }
  return writeHandover(paths, state.apps)
}

async function writeHandover (paths, apps) {
  const { writeFileAtomic } = require('../../shared/state/atomic-write')
  const { serializeState, summarizeApps } = require('../../shared/state/state-format')
  const file = path.join(paths.home, 'update.json')
  await writeFileAtomic(file, serializeState({ apps, cleanShutdown: true }))
  return { file, ...summarizeApps(apps) }
}

// `kill` over the socket when we can talk to the daemon, SIGTERM otherwise (same graceful stop).
async function stopDaemon (client, pid, paths) {
  if (client) {
    const closed = new Promise((resolve) => client.once('close', resolve))
    await client.request('kill', { handover: true }, { timeout: 10000 }) // any other kill makes update.json stale
    await closed
  } else if (pid) {
    try { process.kill(pid, 'SIGTERM') } catch {}
  }
  if (!pid) return
  if (!(await waitPidGone(pid, { timeoutMs: 120000 }))) throw new XpmError('XPM_ERR_TIMEOUT', `the old daemon (pid ${pid}) did not exit; see ${paths.daemonLog}`)
}

function readPid (paths) {
  try { return Number(fs.readFileSync(paths.pidFile, 'utf8')) || 0 } catch { return 0 }
}

module.exports = { update }
