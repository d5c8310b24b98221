'use strict'

// Crashes, restarts and errored processes of one app as OTLP log records beside its lines, with
// the reason the restart journal gives (`xpm why`), so a backend shows them on the app's
// timeline. Listens to the model's events (the supervisor), writes nothing. → unsubscribe().
const EVENTS = {
  'waiting restart': { name: 'xpm.process.crash', severityNumber: 13, severityText: 'WARN' },
  errored: { name: 'xpm.process.errored', severityNumber: 17, severityText: 'ERROR' }
}

function followLifecycle (supervisor, appName, emit) {
  const onStatus = (change) => {
    const kind = change.name === appName && EVENTS[change.to]
    if (!kind) return
    const delay = typeof change.delay === 'number' ? `; restarting in ${change.delay} ms` : ''
    emit(record(kind, change, `${change.name} (id ${change.id}) ${change.to}: ${change.reason ?? 'exited'}${delay}`))
  }
  const onRestart = (r) => {
    if (r.name !== appName) return
    emit(record({ name: 'xpm.process.restart', severityNumber: 9, severityText: 'INFO' }, r, `${r.name}[${r.instance}] restart: ${r.reason}`))
  }
  return supervisor.subscribe({ status: onStatus, restart: onRestart })
}

function record (kind, event, body) {
  const attributes = { 'event.name': kind.name, 'xpm.id': event.id }
  if (event.instance !== undefined) attributes['xpm.instance'] = event.instance
  if (event.reason) attributes['xpm.reason'] = String(event.reason)
  if (event.exit) {
    if (event.exit.code !== null && event.exit.code !== undefined) attributes['process.exit.code'] = event.exit.code
    if (event.exit.signal) attributes['process.exit.signal'] = event.exit.signal
  }
  return { timestamp: Date.now(), severityNumber: kind.severityNumber, severityText: kind.severityText, body, attributes }
}

module.exports = { followLifecycle }
