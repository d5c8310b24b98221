// The log of the selected app, fed by the page's event stream ('lines' events): stdout and
// stderr apart, pause (lines keep arriving and are counted, the view holds), a text filter, at
// most MAX_LINES lines kept.
(function () {
  'use strict'
  const MAX_LINES = 1000

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
      for (const l of batch.lines) {
        this.lines.push(l)
        if (this.paused) this.held++
        else this.append(l)
      }
      if (this.lines.length > MAX_LINES) this.lines.splice(0, this.lines.length - MAX_LINES)
      while (this.box.childElementCount > MAX_LINES) this.box.firstElementChild.remove()
      if (this.paused) this.pauseButton.textContent = `resume (${this.held} new)`
    }

    matches (l) {
      return !this.filter || l.line.toLowerCase().includes(this.filter)
    }

    element (l) {
      const div = document.createElement('div')
      div.className = `line ${l.stream}`
      const src = document.createElement('span')
      src.className = 'src'
      src.textContent = `${l.id ?? ''}|${l.app ?? ''}`
      div.appendChild(src)
      div.appendChild(document.createTextNode(l.line)) // text, never HTML
      return div
    }

    append (l) {
      if (!this.matches(l)) return
      const box = this.box
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

  window.XpmLogPanel = { LogPanel }
})()
