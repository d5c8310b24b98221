'use strict'

// Crashes, restarts, reloads and errored processes of one app as OTLP log records beside its
// lines, with the reason the restart journal gives (`xpm why`), so a backend shows them on the
// app's timeline. A reload is events of its own: each process it replaced
// (`xpm.process.reload`, with the old and new pid), each replacement it rolled back
// (`xpm.process.reload_failed`) and the reload as a whole with its result (`xpm.app.reload`).
// Listens to the model's events (the supervisor), writes nothing. → unsubscribe().
const EVENTS = {
  'waiting restart': { name: 'xpm.process.crash', severityNumber: 13, severityText: 'WARN' },
  errored: { name: 'xpm.process.errored', severityNumber: 17, severityText: 'ERROR' }
}
const INFO = { severityNumber: 9, severityText: 'INFO' }
const WARN = { severityNumber: 13, severityText: 'WARN' }

function followLifecycle (supervisor, appName, emit) {
  return supervisor.subscribe({
    status: (change) => {
      const kind = change.name === appName && EVENTS[change.to]
      if (!kind) return
      const delay = typeof change.delay === 'number' ? `; restarting in ${change.delay} ms` : ''
      emit(record(kind, change, `${change.name} (id ${change.id}) ${change.to}: ${change.reason ?? 'exited'}${delay}`))
    },
    restart: (r) => {
      if (r.name !== appName) return
      if (!r.replaced) {
        emit(record({ name: 'xpm.process.restart', ...INFO }, r, `${r.name}[${r.instance}] restart: ${r.reason}`))
        return
      }
      const rec = record({ name: 'xpm.process.reload', ...INFO }, r, `${r.name}[${r.instance}] reload: ${r.reason} (pid ${r.oldPid} → ${r.pid})`)
      rec.attributes['process.pid'] = r.pid
      rec.attributes['xpm.old_pid'] = r.oldPid
      emit(rec)
    },
    'replace-failed': (f) => {
      if (f.name !== appName) return
      const rec = record({ name: 'xpm.process.reload_failed', ...WARN }, { ...f, reason: f.cause }, `${f.name}[${f.instance}] reload (${f.cause}) rolled back: ${f.reason}`)
      rec.attributes['xpm.error'] = String(f.reason)
      emit(rec)
    },
    reloaded: (e) => {
      if (e.app !== appName) return
      const rec = record({ name: 'xpm.app.reload', ...(e.result === 'success' ? INFO : WARN) }, { reason: e.reason }, `${e.app} reload (${e.reason}): ${e.result}`)
      rec.attributes['xpm.reload.result'] = e.result
      emit(rec)
    }
  })
}

function record (kind, event, body) {
  const attributes = { 'event.name': kind.name }
  if (event.id !== undefined) attributes['xpm.id'] = event.id
  if (event.instance !== undefined) attributes['xpm.instance'] = event.instance
  if (event.reason) attributes['xpm.reason'] = String(event.reason)
  if (event.exit) {
    if (event.exit.code !== null && event.exit.code !== undefined) attributes['process.exit.code'] = event.exit.code
    if (event.exit.signal) attributes['process.exit.signal'] = event.exit.signal
  }
  return { timestamp: Date.now(), severityNumber: kind.severityNumber, severityText: kind.severityText, body, attributes }
}

module.exports = { followLifecycle }
