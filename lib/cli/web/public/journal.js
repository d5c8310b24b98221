// The restart journal of the selected app (what `xpm why` prints) as an HTML table: when, which
// process, what happened, and the last lines a crashed process printed under its sentence
// (rendered as the log panel's lines: colours, control characters shown).
import { appendText } from './rich-text.js'

const pad = (n) => String(n).padStart(2, '0')

function when (at, now = Date.now()) {
  const d = new Date(at)
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  return new Date(now).toDateString() === d.toDateString() ? time : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`
}

function cell (tr, cls, text) {
  const td = document.createElement('td')
  td.className = cls
  appendText(td, text)
  tr.appendChild(td)
  return td
}

// rows: /api/why's `rows` ({ at, process, what, lines }, newest first); app: for the empty text
function renderJournal (box, rows, app) {
  box.textContent = ''
  if (!rows.length) {
    const p = document.createElement('p')
    p.className = 'empty'
    p.textContent = `Nothing recorded for ${app} yet: no process of it has exited or restarted.`
    box.appendChild(p)
    return
  }
  const table = document.createElement('table')
  const head = table.createTHead().insertRow()
  for (const h of ['when', 'process', 'what happened']) {
    const th = document.createElement('th')
    th.textContent = h
    head.appendChild(th)
  }
  const body = table.createTBody()
  for (const r of rows) {
    const tr = body.insertRow()
    cell(tr, 'when', when(r.at)).title = new Date(r.at).toISOString()
    cell(tr, 'process', r.process)
    const what = cell(tr, 'what', r.what)
    if (r.lines?.length) {
      const pre = document.createElement('div')
      pre.className = 'last-lines'
      for (const l of r.lines) {
        const line = document.createElement('div')
        line.dir = 'ltr'
        line.className = `line ${l.stream === 'err' ? 'err' : 'out'}`
        appendText(line, l.line)
        pre.appendChild(line)
      }
      what.appendChild(pre)
    }
  }
  box.appendChild(table)
}

function renderJournalError (box, message) {
  box.textContent = ''
  const p = document.createElement('p')
  p.className = 'fail'
  p.textContent = message
  box.appendChild(p)
}

export { renderJournal, renderJournalError }
