'use strict'

// Asks the daemon for the recent lines of the selected process the first time it is selected
// (the `logs` method, follow: false), so the log pane shows what the app wrote before monit
// started instead of waiting for its next line. One request at a time; a selection that moved
// on meanwhile is asked for next. A daemon without logs (no log sink) is not asked again.
function recentLogs ({ client, model, onLines = () => {} }) {
  const asked = new Set()
  let inFlight = false
  let closed = false
  const sync = () => {
    if (closed || inFlight) return
    const id = model.selectedId
    if (id === null || asked.has(id)) return
    asked.add(id)
    inFlight = true
    client.request('logs', { target: String(id), lines: model.logLimit(), follow: false }).then((reply) => {
      if (closed) return
      if (model.seedLogs(id, Array.isArray(reply?.lines) ? reply.lines : [])) onLines()
    }, (err) => {
      // a process gone meanwhile is simply not shown; a daemon that cannot read logs never will
      if (err?.code === 'XPM_ERR_UNKNOWN_METHOD') closed = true
    }).finally(() => {
      inFlight = false
      for (const known of asked) if (!model.processes.some((p) => p.id === known)) asked.delete(known)
      sync()
    })
  }
  return { sync, close: () => { closed = true } }
}

module.exports = { recentLogs }
