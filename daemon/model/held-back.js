'use strict'

// An operation of an app held back by a failed dependency (depends_on: its start failed because
// a dependency was not ready, so nothing of it runs, yet its instances are wanted up). App#run
// calls it with `waiting`, the wait for the dependencies its intent's spec names
// (context.untilDependencies: rejects with XPM_ERR_DEPENDENCY_FAILED while they fail). The app
// takes that spec first; once they are ready the operation runs, and the instances the failed
// start left down come up too, after the operation's own work (a scale, a restart of some of
// them) if that did not launch them.
async function runHeldBack (app, waiting, fn, signal) {
  app.adoptSpec()
  await waiting
  const owed = new Map(app.kept.filter((i) => i.wanted && !i.processes().length).map((i) => [i, i.startedAt]))
  const result = await fn(signal)
  const left = [...owed].filter(([i, at]) => i.startedAt === at && i.wanted && !i.removing && app.instances.includes(i) && !i.processes().length)
  if (left.length) await app.launchAll(left.map(([i]) => i), signal)
  return result
}

module.exports = { runHeldBack }
