// The process table: only the rows in view exist in the DOM (a pool of row elements reused as
// the list scrolls), and a cell is written only when its text changed, so 1,000 processes cost
// what the 30 or so visible rows cost. onShown(ids) hears the ids in view (and the selected one)
// after every paint; rowClass(row) adds a class to a row (a crash-looping one). A cell's whole
// text is its title: a name cut short shows in full on hover. keyOf(row): a row's key (its id,
// or `<host>/<id>` across hosts), in data-id.
/* global requestAnimationFrame */
const ROW_HEIGHT = 24
const OVERSCAN = 6

class VirtualTable {
  constructor ({ viewport, sizer, rows, columns, onSelect, onShown = () => {}, rowClass = () => '', keyOf = (row) => row[0] }) {
    Object.assign(this, { viewport, sizer, rowsEl: rows, columns, onSelect, onShown, rowClass, keyOf })
    this.list = []
    this.pool = []
    this.selectedId = null
    this.queued = false
    viewport.addEventListener('scroll', () => this.schedule(), { passive: true })
    window.addEventListener('resize', () => this.schedule())
    rows.addEventListener('click', (e) => {
      const el = e.target.closest('.row')
      if (el && el.rowKey !== undefined) this.onSelect(el.rowKey)
    })
  }

  // the header: one span a column, its key in data-key (app.js sorts on a click)
  renderHead (thead) {
    for (const c of this.columns) {
      const span = document.createElement('span')
      span.textContent = c.label
      span.dataset.key = c.key
      if (c.num) span.className = 'num'
      span.title = `sort by ${c.key}`
      thead.appendChild(span)
    }
  }

  setList (list) {
    this.list = list
    this.sizer.style.height = (list.length * ROW_HEIGHT) + 'px'
    this.schedule()
  }

  select (id) {
    this.selectedId = id
    this.schedule()
  }

  // Keeps the row of `id` in view (keyboard moves).
  reveal (id) {
    const index = this.list.findIndex((r) => this.keyOf(r) === id)
    if (index === -1) return
    const top = index * ROW_HEIGHT
    const vp = this.viewport
    if (top < vp.scrollTop) vp.scrollTop = top
    else if (top + ROW_HEIGHT > vp.scrollTop + vp.clientHeight) vp.scrollTop = top + ROW_HEIGHT - vp.clientHeight
  }

  schedule () {
    if (this.queued) return
    this.queued = true
    requestAnimationFrame(() => {
      this.queued = false
      this.render()
    })
  }

  rowElement (i) {
    let el = this.pool[i]
    if (el) return el
    el = document.createElement('div')
    el.className = 'row'
    el.texts = []
    el.classes = []
    el.cells = this.columns.map((c) => {
      const span = document.createElement('span')
      span.dataset.col = c.key
      if (c.num) span.className = 'num'
      el.appendChild(span)
      return span
    })
    this.rowsEl.appendChild(el)
    this.pool[i] = el
    return el
  }

  render () {
    const height = this.viewport.clientHeight || 600
    const first = Math.max(0, Math.floor(this.viewport.scrollTop / ROW_HEIGHT) - OVERSCAN)
    const count = Math.min(this.list.length - first, Math.ceil(height / ROW_HEIGHT) + 2 * OVERSCAN)
    this.rowsEl.style.transform = `translateY(${first * ROW_HEIGHT}px)`
    const shown = this.selectedId === null ? [] : [this.selectedId]
    for (let i = 0; i < Math.max(count, this.pool.length); i++) {
      const row = i < count ? this.list[first + i] : null
      if (!row) {
        if (this.pool[i] && !this.pool[i].hidden) this.pool[i].hidden = true
        continue
      }
      const el = this.rowElement(i)
      if (el.hidden) el.hidden = false
      const key = this.keyOf(row)
      shown.push(key)
      el.rowKey = key
      const id = String(key)
      if (el.dataset.id !== id) el.dataset.id = id
      const extra = this.rowClass(row)
      const cls = 'row' + (key === this.selectedId ? ' selected' : '') + (extra ? ' ' + extra : '')
      if (el.rowCls !== cls) {
        el.className = cls
        el.rowCls = cls
      }
      for (let c = 0; c < this.columns.length; c++) {
        const col = this.columns[c]
        const text = col.text(row)
        if (el.texts[c] !== text) {
          el.cells[c].textContent = text
          el.cells[c].title = text
          el.texts[c] = text
        }
        if (col.cls) {
          const cls = col.cls(row)
          if (el.classes[c] !== cls) {
            el.cells[c].className = (col.num ? 'num ' : '') + cls
            el.classes[c] = cls
          }
        }
      }
    }
    this.onShown([...new Set(shown)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)))
  }
}

export { VirtualTable, ROW_HEIGHT }
