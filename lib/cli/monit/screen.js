'use strict'

// The blessed side of monit: four boxes laid out from the terminal size, filled with the text
// render.js builds. Kept thin on purpose; all decisions live in model.js and render.js.

const blessed = require('blessed')
const render = require('./render')

function createScreen ({ stdin, stdout }) {
  const screen = blessed.screen({
    input: stdin,
    output: stdout,
    smartCSR: true,
    // Without this blessed replaces every non-ASCII cell (the chart blocks) with '?' when the
    // locale variables do not say UTF-8, as in many CI shells.
    forceUnicode: true,
    // 日本語 and emoji take two cells: blessed must know it, or every cell after one is off.
    fullUnicode: true,
    warnings: false,
    title: 'xpm monit'
  })
  // Draw borders as UTF-8 box characters instead of the terminal's alternate charset (ACS):
  // we already emit UTF-8 for the charts, and ACS shows up as "lqqk" in tmux captures and on
  // terminals whose terminfo misdeclares it.
  screen.tput.brokenACS = true
  const box = (opts) => blessed.box({ parent: screen, tags: true, wrap: false, ...opts })
  const header = box({ top: 0, left: 0, height: 1, style: { fg: 'white', bg: 'blue' } })
  const panel = { border: { type: 'line' } }
  const list = box(panel)
  const detail = box(panel)
  const logs = box({ ...panel, wrap: true, scrollable: true, alwaysScroll: true })
  // Titles are separate one-line boxes over the top border rather than blessed labels: a label
  // repaints the whole screen on every scroll and resize of its box, which doubles the paints.
  const titles = [list, detail, logs].map((el) => ({ el, box: box({ height: 1, style: { bold: true } }) }))
  let lastLogText = null

  function layout () {
    const W = Math.max(screen.width, 10)
    const H = Math.max(screen.height, 4)
    const topHeight = Math.max(Math.min(Math.floor((H - 1) * 0.6), H - 1), Math.min(12, H - 1))
    const listWidth = Math.min(Math.max(Math.floor(W * 0.42), 30), W)
    header.width = W
    Object.assign(list, { top: 1, left: 0, width: listWidth, height: topHeight })
    Object.assign(detail, { top: 1, left: listWidth, width: Math.max(W - listWidth, 1), height: topHeight })
    Object.assign(logs, { top: 1 + topHeight, left: 0, width: W, height: Math.max(H - 1 - topHeight, 1) })
    detail.hidden = W - listWidth < 12
    logs.hidden = H - 1 - topHeight < 3
  }

  function setTitle (index, text) {
    const { el, box: title } = titles[index]
    text = ` ${text} `.slice(0, Math.max(el.width - 4, 0))
    Object.assign(title, { top: el.top, left: el.left + 2, width: Math.max(text.length, 1), hidden: el.hidden || !text })
    if (title.content !== render.escape(text)) title.setContent(render.escape(text))
  }

  function inner (el) {
    return { width: Math.max(el.width - 2, 0), height: Math.max(el.height - 2, 0) }
  }

  function draw (model) {
    layout()
    header.setContent(render.header(model, header.width))
    const l = inner(list)
    list.setContent(render.listLines(model, l.width, l.height).join('\n'))
    const selected = model.selected()
    const name = selected ? `${selected.name} #${selected.hostId ?? selected.id}${selected.host ? ` on ${selected.host}` : ''}` : ''
    setTitle(0, 'Processes')
    const d = inner(detail)
    setTitle(1, name || 'Details')
    detail.setContent(render.detailLines(model, d.width, d.height).join('\n'))
    setTitle(2, name ? `Logs: ${name}` : 'Logs')
    const logText = render.logLines(model).join('\n')
    if (logText !== lastLogText) {
      lastLogText = logText
      logs.setContent(logText)
      logs.setScrollPerc(100)
    }
    screen.render()
  }

  return {
    draw,
    onKey: (keys, fn) => screen.key(keys, fn),
    onResize: (fn) => screen.on('resize', fn),
    destroy: () => screen.destroy()
  }
}

module.exports = { createScreen }
