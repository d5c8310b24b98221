'use strict'

const { XpmError } = require('../errors')
const { suggest } = require('./suggest')

// depends_on across the apps of one ecosystem file: every name must be an app of the file
// (`known`: all of them, even those --only leaves out), an app cannot depend on itself, and the
// apps must not depend on each other in a circle. Pure; the daemon orders the starts and stops
// (daemon/dependencies.js).
function checkDependencies (specs, { file = null, known = specs.map((s) => s.name) } = {}) {
  const where = file ? ` in ${file}` : ''
  for (const spec of specs) {
    for (const dep of spec.dependsOn || []) {
      if (dep === spec.name) {
        throw new XpmError('XPM_ERR_CONFIG_INVALID', `app "${spec.name}"${where} depends on itself (depends_on)`, { details: { app: spec.name, dependsOn: dep } })
      }
      if (!known.includes(dep)) {
        const near = suggest(dep, known)
        throw new XpmError('XPM_ERR_CONFIG_INVALID',
          `app "${spec.name}"${where} depends on "${dep}", which is not an app of the file${near ? ` — did you mean "${near}"?` : ''} (apps: ${known.join(', ')})`,
          { details: { app: spec.name, dependsOn: dep } })
      }
    }
  }
  const cycle = findCycle(specs)
  if (cycle) {
    throw new XpmError('XPM_ERR_CONFIG_INVALID', `depends_on goes round in a circle${where}: ${cycle.join(' → ')}`, { details: { cycle } })
  }
}

// The first cycle among the specs' depends_on, as names (the first repeated at the end), or null.
function findCycle (specs) {
  const deps = new Map(specs.map((s) => [s.name, (s.dependsOn || []).filter((d) => d !== s.name)]))
  const state = new Map() // name → 'visiting' | 'done'
  const stack = []
  const visit = (name) => {
    if (state.get(name) === 'done' || !deps.has(name)) return null
    if (state.get(name) === 'visiting') return [...stack.slice(stack.indexOf(name)), name]
    state.set(name, 'visiting')
    stack.push(name)
    for (const dep of deps.get(name)) {
      const found = visit(dep)
      if (found) return found
    }
    stack.pop()
    state.set(name, 'done')
    return null
  }
  for (const name of deps.keys()) {
    const found = visit(name)
    if (found) return found
  }
  return null
}

// Start order in waves: each wave only depends on the waves before it (for display: apply's plan,
// `xpm start` of a file). Names outside `specs` are taken as already there.
function startWaves (specs) {
  const names = new Set(specs.map((s) => s.name))
  const placed = new Set()
  const waves = []
  let left = [...specs]
  while (left.length) {
    const wave = left.filter((s) => (s.dependsOn || []).every((d) => !names.has(d) || placed.has(d) || d === s.name))
    if (!wave.length) { waves.push(left.map((s) => s.name)); break } // a cycle: not from a checked config
    waves.push(wave.map((s) => s.name))
    for (const s of wave) placed.add(s.name)
    left = left.filter((s) => !placed.has(s.name))
  }
  return waves
}

module.exports = { checkDependencies, findCycle, startWaves }
