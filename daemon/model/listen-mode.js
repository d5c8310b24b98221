'use strict'

const { XpmError } = require('../../lib/shared/errors')

// How a cluster app's workers take their port: through the daemon (round-robin) or each one its
// own SO_REUSEPORT socket (`reuse_port`). The two cannot share a port: the daemon's socket and
// the workers' refuse each other (EADDRINUSE), and the daemon holds its socket until the last
// round-robin worker has left. So a reload, whose replacement listens while the old worker still
// serves, cannot change the mode; a restart can, once every old process is gone.
const modeOf = (spec) => spec?.reusePort === true ? 'reuse_port' : 'round-robin'

// Whether `next` listens in another mode than `current`: null, or { from, to }.
function listenModeChange (current, next) {
  const [from, to] = [modeOf(current), modeOf(next)]
  return from === to ? null : { from, to }
}

// A reload with new specs, before anything of it is applied: refused when an app that has
// processes would change its mode (the replacement could not listen; a crash of a worker later
// would restart it in the other mode and loop on EADDRINUSE).
function refuseModeChangeOnReload (apps, specs) {
  for (const spec of specs ?? []) {
    const app = apps.get(spec.name)
    if (!app || app.deleted || !app.instances.some((i) => i.processes().length)) continue
    const change = listenModeChange(app.desiredSpec, spec)
    if (!change) continue
    throw new XpmError('XPM_ERR_RELOAD_MODE_CHANGE',
      `Reload of ${app.name} refused: its new spec turns reuse_port ${change.to === 'reuse_port' ? 'on' : 'off'}, and a worker in one mode cannot take over the port from a worker in the other (round-robin and reuse_port sockets refuse each other); nothing was changed. \`xpm restart\` with the same file applies it: every instance stops, then starts (new connections are refused in between)`,
      { details: { app: app.name, ...change } })
  }
}

// A restart that changes the mode stops every process of the app before any starts (instances
// restarted at once would otherwise start beside a slower one still draining in the old mode);
// the instances it stops count a restart, as a restart's own stop would.
async function stopAllForModeChange (app, reason) {
  const running = app.instances.filter((i) => i.processes().length)
  await Promise.all(running.map((i) => i.stop(reason)))
  for (const inst of running) inst.noteRestart(reason)
}

module.exports = { listenModeChange, refuseModeChangeOnReload, stopAllForModeChange }
