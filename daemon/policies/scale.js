'use strict'

const { XpmError } = require('../../lib/errors')
const { STATUS } = require('../process-state')

const MAX_INSTANCES = 1024

// `xpm scale <name> <n|+n|-n>`. The change arrives as the string the user typed. Pure.
function parseScaleChange (value) {
  const match = /^\s*([+-]?)(\d+)\s*$/.exec(String(value))
  if (!match) {
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected the instance count to be n, +n or -n (e.g. 4, +2, -1), got ${JSON.stringify(String(value))}`)
  }
  return { op: match[1] === '+' ? 'add' : match[1] === '-' ? 'sub' : 'set', n: Number(match[2]) }
}

// The resulting count, at least 1 (stopping every instance is `xpm stop`). Pure.
function scaleTarget (current, { op, n }) {
  const target = op === 'add' ? current + n : op === 'sub' ? current - n : n
  if (target < 1) {
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Scaling to ${target} instance${target === 1 ? '' : 's'} is not possible: keep at least 1 (use \`xpm stop\` to stop them all)`)
  }
  if (target > MAX_INSTANCES) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Scaling to ${target} instances is more than ${MAX_INSTANCES}`)
  return target
}

// Which instance indexes to add and which to remove so the app has exactly `target` of them,
// indexed 0..target-1: the highest indexes go, gaps (left by deleting one process) are filled
// first. Pure.
function planScale (indexes, target) {
  const have = new Set(indexes)
  return {
    add: range(target).filter((i) => !have.has(i)),
    remove: indexes.filter((i) => i >= target).sort((a, b) => b - a)
  }
}

function range (n) {
  return Array.from({ length: n }, (_, i) => i)
}

// Adds or removes instances of one app without touching the others. New instances start when
// the app is running (some instance not stopped); otherwise they wait, stopped, for `xpm start`.
async function scaleApp (supervisor, name, change) {
  const app = supervisor.apps.get(String(name))
  if (!app) {
    const known = [...supervisor.apps.keys()]
    throw new XpmError('XPM_ERR_APP_NOT_FOUND', `No app "${name}"` + (known.length ? ` (known apps: ${known.join(', ')})` : ' (no apps are managed)'), { details: { target: name } })
  }
  const from = app.instances.length
  const to = scaleTarget(from, typeof change === 'object' ? change : parseScaleChange(change))
  const running = app.instances.some((i) => i.status !== STATUS.STOPPED && i.status !== STATUS.ERRORED)
  const plan = planScale(app.instances.map((i) => i.index), to)

  const removed = plan.remove.map((index) => app.instances.find((i) => i.index === index))
  app.instances = app.instances.filter((i) => !removed.includes(i))
  const added = plan.add.map((index) => supervisor.newInstance(app, index))
  app.instances = [...app.instances, ...added].sort((a, b) => a.index - b.index)
  app.spec = { ...app.spec, instances: to }
  supervisor.emit('change')

  await Promise.all(removed.map((i) => i.stop()))
  for (const inst of removed) supervisor.metrics?.untrack(inst.id)
  const started = running && added.length ? await supervisor.startInstances(added) : { failures: [] }
  supervisor.emit('change')
  return {
    name: app.name,
    from,
    to,
    added: added.map((i) => ({ id: i.id, instance: i.index })),
    removed: removed.map((i) => ({ id: i.id, instance: i.index })),
    started: running,
    failures: started.failures
  }
}

module.exports = { parseScaleChange, scaleTarget, planScale, scaleApp }
