'use strict'

// Tells the daemon which processes the dashboard shows (its visible rows and the selected one)
// whenever a paint changed them, so the daemon samples those every second and leaves the others
// on its idle schedule (the `watch` method; docs/protocol.md). One request at a time, the latest
// set wins. A daemon without `watch` (older) keeps sending every process: the model then records
// every one again.
function watchShown ({ client, model, onHistory = () => {} }) {
  let sent = null
  let inFlight = false
  let closed = false
  const sync = () => {
    if (closed || inFlight) return
    const ids = model.shownIds()
    const key = ids.join(',')
    if (key === sent) return
    sent = key
    inFlight = true
    model.watch(ids)
    client.request('watch', { ids }).then((reply) => {
      if (closed) return
      model.seedHistory(reply?.history)
      onHistory()
    }, (err) => {
      if (err?.code !== 'XPM_ERR_UNKNOWN_METHOD') return
      closed = true
      model.watch(null)
    }).finally(() => {
      inFlight = false
      sync()
    })
  }
  return { sync, close: () => { closed = true } }
}

module.exports = { watchShown }
