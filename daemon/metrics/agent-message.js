'use strict'

// The agent's IPC message: { 'xpm:agent': 'metrics', data: { heapUsed, ..., elu } }. Apps share
// the channel, so only known fields are kept. An agent sends only the figures that changed since
// its previous report: a field left out keeps its value, null means "not known" (say, no loop
// delay figures yet).
const FIELDS = ['heapUsed', 'heapTotal', 'rss', 'elP50', 'elP90', 'elP95', 'elP99', 'elMax', 'elu']

// undefined: not a metrics report (other 'xpm:agent' kinds belong to other modules).
// null: a metrics report without usable data.
// Otherwise the fields it carries, each a finite number or null.
function agentMetrics (msg) {
  if (msg === null || typeof msg !== 'object' || msg['xpm:agent'] !== 'metrics') return undefined
  if (msg.data === null || typeof msg.data !== 'object') return null
  const out = {}
  for (const key of FIELDS) {
    if (!Object.hasOwn(msg.data, key)) continue
    const value = msg.data[key]
    out[key] = typeof value === 'number' && Number.isFinite(value) ? value : null
  }
  return out
}

module.exports = { agentMetrics, FIELDS }
