'use strict'

const { XpmError } = require('../../lib/shared/errors')
const { show } = require('../../lib/shared/units')
const { MAX_ENTRIES } = require('./store')

// The socket method of the journal, `why` ({ target, limit? } → { entries }, newest first), and
// the last cause `show` prints (lastEvent). Listed in daemon/methods.js.
function createJournalMethods ({ supervisor, journal, target }) {
  async function why (params) {
    const name = target(params)
    const limit = params.limit === undefined ? MAX_ENTRIES : params.limit
    // the journal keeps the newest MAX_ENTRIES events of each app: a larger limit could only
    // promise what is not there
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_ENTRIES) {
      throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected \`limit\` to be a whole number from 1 to ${MAX_ENTRIES} (the journal keeps the newest ${MAX_ENTRIES} events of each app), got ${show(limit)}`)
    }
    const selected = supervisor.resolve(name)
    const byApp = new Map()
    for (const inst of selected) {
      if (!byApp.has(inst.name)) byApp.set(inst.name, new Set())
      byApp.get(inst.name).add(inst.id)
    }
    const parts = await Promise.all([...byApp].map(([app, ids]) => {
      const whole = supervisor.apps.get(app)?.instances.every((i) => ids.has(i.id))
      return journal.entries({ app, ids: whole ? null : ids, limit })
    }))
    const entries = parts.flat().sort((a, b) => b.at - a.at).slice(0, limit)
    return { apps: [...byApp.keys()], entries }
  }

  // show's rows, each with the newest journal entry of its process (null when it has none).
  async function withLastEvent (rows, instances) {
    const last = await journal.lastFor(instances)
    return rows.map((row) => ({ ...row, lastEvent: last.get(row.id) ?? null }))
  }

  return { why, withLastEvent }
}

module.exports = { createJournalMethods }
