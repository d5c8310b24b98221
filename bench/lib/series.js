'use strict'

// Runs fn(contender, round) for round 0..rounds-1, alternating the contenders inside each round
// (xpm, pm2, raw, xpm, pm2, raw, …). fn resolves an object of figures ({ rps: 123, p99: 4 });
// each figure is appended to its series. A failing run is recorded and the series goes on.
async function alternate (contenders, rounds, fn, { log = () => {} } = {}) {
  const series = {}
  const errors = {}
  for (const c of contenders) series[c.name] = {}
  for (let round = 0; round < rounds; round++) {
    for (const c of contenders) {
      try {
        const figures = await fn(c, round)
        for (const [key, value] of Object.entries(figures || {})) {
          (series[c.name][key] ||= []).push(value)
        }
      } catch (err) {
        if (err.notApplicable) continue
        errors[c.name] = err.message
        log(`  ${c.name} round ${round + 1}: ${err.message}`)
      }
    }
  }
  return { series, errors }
}

// Builds report rows from an alternate() result. defs: [{ id, label, key, unit, better }].
function rows (defs, { series, errors }, extra = {}) {
  return defs.map((def) => {
    const row = { id: def.id, label: def.label, unit: def.unit, better: def.better || 'lower', note: def.note, series: {}, errors: {} }
    for (const [name, figures] of Object.entries(series)) {
      if (figures[def.key]) row.series[name] = figures[def.key]
      else if (errors[name]) row.errors[name] = errors[name]
    }
    Object.assign(row, extra[def.id] || {})
    return row
  })
}

module.exports = { alternate, rows }
