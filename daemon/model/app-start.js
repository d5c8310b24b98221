'use strict'

const { NO_CHANGE, alreadyRunning } = require('./app-scale')
const { isWantedUp } = require('./predicates')

// App#start. With a spec: (re)defines the app, as PM2's `start` does (docs/migrating-from-pm2.md):
//   stopped app               starts with the new spec;
//   running, from a file      restarts with the new spec (a deploy's `xpm start ecosystem…`);
//   running, from a script    refused (XPM_ERR_APP_EXISTS) unless `copy` (-f): then one more
//                             copy of it starts (spec.instances new instances of the app).
// Without: starts the given instances (default all).
// The spec and its instance count are the intent from the moment the start is accepted
// (app-scale.js); the operation stops the old processes, then starts with it.
// dependencies(signal): resolves once the apps this one depends on are ready (depends_on, see
// Supervisor.start); awaited in this operation, so a stop or delete meanwhile cancels it.
// converge: a restore bringing the processes to an intent already recorded: only the
// instances still wanted when the operation runs are started, and the intent is not changed.
function startApp (app, { spec = null, fromScript = false, copy = false, instances = null, onProgress = null, dependencies = null, converge = false } = {}) {
  const running = app.running
  if (spec && running && fromScript && !copy) return Promise.resolve(alreadyRunning(app, spec))
  if (spec && running && fromScript && copy) return app.addCopy(spec, { onProgress })
  const previous = app.kept
  const change = spec && !converge ? app.reshape({ spec }) : NO_CHANGE
  const { added } = change
  if (!converge) {
    app.want(instances ?? app.kept, true) // without instances: the whole app, new slots too
    if (app.running) app.want(added, true)
  }
  return app.run('start', async (signal) => {
    let action = 'started'
    if (spec) {
      if (running) {
        action = 'restarted'
        await Promise.all(app.instances.map((i) => i.stop('restart')))
        signal.throwIfAborted()
        for (const i of previous) if (!i.removing) i.noteRestart('restart') // not those the spec removed
      }
      await change.retired
      signal.throwIfAborted()
    }
    app.adoptSpec()
    if (dependencies) {
      await dependencies(signal)
      signal.throwIfAborted()
    }
    // slots the spec added are wanted up when the app runs (app-scale.js): this start launches
    // them, whatever instances it names (nothing else will)
    const targets = [...(instances ?? app.kept), ...(instances ? added.filter(isWantedUp) : [])].filter((i) => app.instances.includes(i) && !i.removing && (!converge || i.wanted))
    return { name: app.name, action, ...(await app.launchAll(targets, signal, onProgress)) }
  })
}

module.exports = { startApp }
