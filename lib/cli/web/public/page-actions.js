// The selected process's buttons: restart, reload, stop and start of its app or of it alone
// (POST /api/action, the answer read line by line as the CLI prints it). Across hosts the action
// goes to the row's host and the line says which (`--host h2`). Stopping a whole app asks first.
import * as auth from './auth.js'

// page: { state, v, $, onDone } (app.js)
export function wireActions ({ state, v, $, onDone }) {
  function out (text, cls) {
    const line = document.createElement('div')
    if (cls) line.className = cls
    line.textContent = text
    $('action-output').appendChild(line)
    $('action-output').scrollTop = $('action-output').scrollHeight
  }

  async function act (action, target, host = state.selectedHost) {
    const buttons = document.querySelectorAll('#actions button')
    for (const b of buttons) b.disabled = true
    out(`$ xpm ${action} ${target}${host == null ? '' : ` --host ${host}`}`)
    try {
      const res = await auth.post('/api/action', host == null ? { action, target } : { action, target, host })
      if (!res.ok) {
        const body = await res.json().catch(() => ({}))
        out(`xpm: ${body.error?.message || res.statusText}${body.error?.code ? ` [${body.error.code}]` : ''}`, 'fail')
        return
      }
      const reader = res.body.getReader()
      const decoder = new TextDecoder()
      let buffered = ''
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        buffered += decoder.decode(value, { stream: true })
        let nl
        while ((nl = buffered.indexOf('\n')) !== -1) {
          const msg = JSON.parse(buffered.slice(0, nl))
          buffered = buffered.slice(nl + 1)
          if (msg.type === 'step') out(msg.text)
          else if (msg.type === 'done') out(msg.ok ? msg.message : `xpm: ${msg.message} [${msg.code}]`, msg.ok ? 'ok' : 'fail')
        }
      }
    } catch (err) {
      out(`xpm web: ${err.message}`, 'fail')
    } finally {
      for (const b of buttons) b.disabled = state.session.readOnly
      onDone()
    }
  }

  // stopping a whole app takes every instance off (on the selected process's host): asked first, with how many
  function confirmStop (app, host) {
    let n = 0
    for (const row of state.rows.values()) if (v(row, 'name') === app && (v(row, 'host') ?? null) === host && v(row, 'status') !== 'stopped') n++
    return window.confirm(`Stop ${app}${host == null ? '' : ` on ${host}`}: all ${n} running process${n === 1 ? '' : 'es'} of it?`)
  }

  $('actions').addEventListener('click', (e) => {
    const b = e.target.closest('button')
    const row = state.rows.get(state.selectedId)
    if (!b || !row) return
    if (b.dataset.scope === 'app' && b.dataset.action === 'stop' && !confirmStop(state.selectedApp, state.selectedHost)) return
    act(b.dataset.action, b.dataset.scope === 'app' ? state.selectedApp : v(row, 'id'))
  })

  return { act }
}
