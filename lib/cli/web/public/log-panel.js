// The log of the selected app, fed by the page's event stream ('lines' events): stdout and
// stderr apart, each line with its time, its colours rendered and its control characters shown
// (rich-text.js); pause (lines keep arriving and are counted, the view holds), a text filter, at
// most MAX_LINES lines kept. "no output yet" for an app that printed nothing; a marker line
// where the server skipped lines because the page did not keep up.
import { appendText, plain } from './rich-text.js'

const MAX_LINES = 1000

const pad = (n) => String(n).padStart(2, '0')
function timeOf (ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return ''
  const d = new Date(ms)
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
}

class LogPanel {
  constructor ({ box, note, pause, filter }) {
    Object.assign(this, { box, note, pauseButton: pause, filterInput: filter })
    this.lines = []
    this.paused = false
    this.held = 0
    this.filter = ''
    pause.addEventListener('click', () => this.togglePause())
    filter.addEventListener('input', () => {
      this.filter = filter.value.trim().toLowerCase()
      this.redraw()
    })
  }

  // another app selected: its lines come with the page's next stream
  clear () {
    this.lines = []
    this.held = 0
    this.box.textContent = ''
    this.note.textContent = ''
  }

  failed (message) {
    this.note.textContent = message
  }

  onBatch (batch, app) {
    if (batch.history) { // the first batch, also after connecting again: start afresh
      this.lines = []
      this.box.textContent = ''
    }
    if (batch.dropped) this.note.textContent = `${batch.dropped} lines skipped (too fast to show; xpm logs ${app} has them all)`
    const lines = batch.skipped ? [{ skipped: batch.skipped }, ...batch.lines] : batch.lines
    for (const l of lines) {
      this.lines.push(l)
      if (this.paused) this.held++
      else this.append(l)
    }
    if (this.lines.length > MAX_LINES) this.lines.splice(0, this.lines.length - MAX_LINES)
    while (this.box.childElementCount > MAX_LINES) this.box.firstElementChild.remove()
    if (this.paused) this.pauseButton.textContent = `resume (${this.held} new)`
    this.emptyNote()
  }

  emptyNote () {
    if (this.lines.length || this.box.firstChild) return
    const div = document.createElement('div')
    div.className = 'empty'
    div.textContent = 'no output yet'
    this.box.appendChild(div)
  }

  matches (l) {
    return !this.filter || l.skipped !== undefined || plain(l.line).toLowerCase().includes(this.filter)
  }

  element (l) {
    const div = document.createElement('div')
    div.dir = 'ltr'
    if (l.skipped !== undefined) {
      div.className = 'line skipped'
      div.textContent = `… ${l.skipped} line${l.skipped === 1 ? '' : 's'} skipped: the page did not keep up (xpm logs has them all) …`
      return div
    }
    div.className = `line ${l.stream}`
    const time = document.createElement('span')
    time.className = 'time'
    time.textContent = timeOf(l.time)
    if (typeof l.time === 'number') time.title = new Date(l.time).toISOString()
    div.appendChild(time)
    const src = document.createElement('span')
    src.className = 'src'
    src.textContent = `${l.id ?? ''}|${l.app ?? ''}`
    div.appendChild(src)
    const text = document.createElement('span')
    text.className = 'text'
    div.appendChild(appendText(text, l.line)) // text nodes, never HTML
    return div
  }

  append (l) {
    if (!this.matches(l)) return
    const box = this.box
    const empty = box.querySelector('.empty')
    if (empty) empty.remove()
    const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 30
    box.appendChild(this.element(l))
    if (atBottom) box.scrollTop = box.scrollHeight
  }

  redraw () {
    this.box.textContent = ''
    const frag = document.createDocumentFragment()
    for (const l of this.lines) if (this.matches(l)) frag.appendChild(this.element(l))
    this.box.appendChild(frag)
    this.box.scrollTop = this.box.scrollHeight
    this.emptyNote()
  }

  togglePause () {
    this.paused = !this.paused
    this.pauseButton.textContent = this.paused ? 'resume' : 'pause'
    if (!this.paused) {
      this.held = 0
      this.redraw()
    }
  }
}

export { LogPanel }
