'use strict'

const { XpmError } = require('../../lib/shared/errors')

const { MAX_INSTANCES } = require('../../lib/shared/config/limits') // the same bound as instances at start

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

// Which instance indexes to add and which to remove so the app has exactly `target` of them: an
// app that has `target` already changes nothing, whatever its indexes (a gap left by deleting
// one process stays); more are added at the lowest free indexes; fewer keep the highest, the
// newest (PM2's scale: 4 → 2 keeps NODE_APP_INSTANCE 2 and 3, and a scale back to 4 reuses 0
// and 1). Pure.
function planScale (indexes, target) {
  const sorted = [...indexes].sort((a, b) => a - b)
  if (sorted.length >= target) return { add: [], remove: sorted.slice(0, sorted.length - target) }
  const have = new Set(indexes)
  const add = []
  for (let i = 0; add.length < target - sorted.length; i++) if (!have.has(i)) add.push(i)
  return { add, remove: [] }
}

module.exports = { parseScaleChange, scaleTarget, planScale }
