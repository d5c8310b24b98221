// Text from apps (log lines, the journal's last lines) as DOM nodes, never HTML: ANSI colours
// (SGR) become spans with classes, every other escape sequence is dropped, and the characters
// that would change how the rest of the line reads are shown as visible marks instead: the bidi
// controls (a U+202E in a line would reverse everything after it) and the other control
// characters. Each line is also isolated (dir=ltr, unicode-bidi: isolate in style.css).
// eslint-disable-next-line no-control-regex
const ESCAPE = /\x1b(?:\[([0-9;:?<=>]*)[ -/]*([@-~])|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g
// bidi embeddings, overrides, isolates and marks; other C0 controls but tab; DEL and C1
// eslint-disable-next-line no-control-regex
const MARKS = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]|[\x00-\x08\x0a-\x1f\x7f-\x9f]/g

const hex = (c) => 'U+' + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')

function cube (n) { // xterm's 256 colours beyond the first 16
  if (n >= 232) {
    const v = 8 + (n - 232) * 10
    return `rgb(${v},${v},${v})`
  }
  n -= 16
  const level = (x) => (x === 0 ? 0 : 55 + x * 40)
  return `rgb(${level(Math.floor(n / 36))},${level(Math.floor(n / 6) % 6)},${level(n % 6)})`
}

// One SGR sequence applied to a style { fg, bg, bold, dim, italic, underline, strike, inverse },
// a colour being a class number 0-15 or a CSS colour string.
function applySgr (style, params) {
  const p = params === '' ? [0] : params.split(/[;:]/).map((x) => (x === '' ? 0 : Number(x)))
  for (let i = 0; i < p.length; i++) {
    const n = p[i]
    if (n === 0) Object.assign(style, { fg: null, bg: null, bold: false, dim: false, italic: false, underline: false, strike: false, inverse: false })
    else if (n === 1) style.bold = true
    else if (n === 2) style.dim = true
    else if (n === 3) style.italic = true
    else if (n === 4) style.underline = true
    else if (n === 7) style.inverse = true
    else if (n === 9) style.strike = true
    else if (n === 22) style.bold = style.dim = false
    else if (n === 23) style.italic = false
    else if (n === 24) style.underline = false
    else if (n === 27) style.inverse = false
    else if (n === 29) style.strike = false
    else if (n >= 30 && n <= 37) style.fg = n - 30
    else if (n >= 90 && n <= 97) style.fg = n - 90 + 8
    else if (n === 39) style.fg = null
    else if (n >= 40 && n <= 47) style.bg = n - 40
    else if (n >= 100 && n <= 107) style.bg = n - 100 + 8
    else if (n === 49) style.bg = null
    else if (n === 38 || n === 48) {
      let colour = null
      if (p[i + 1] === 5 && p[i + 2] >= 0 && p[i + 2] <= 255) {
        colour = p[i + 2] < 16 ? p[i + 2] : cube(p[i + 2])
        i += 2
      } else if (p[i + 1] === 2 && p.length >= i + 5) {
        colour = `rgb(${p.slice(i + 2, i + 5).map((v) => Math.max(0, Math.min(255, v || 0))).join(',')})`
        i += 4
      }
      if (colour !== null) style[n === 38 ? 'fg' : 'bg'] = colour
    }
  }
}

function styled (style) {
  return style.fg !== null || style.bg !== null || style.bold || style.dim || style.italic || style.underline || style.strike || style.inverse
}

// text without escapes, its marks made visible, appended to parent under the current style
function appendRun (parent, text, style) {
  if (text === '') return
  let target = parent
  if (styled(style)) {
    target = document.createElement('span')
    const [fg, bg] = style.inverse ? [style.bg ?? 'inv-fg', style.fg ?? 'inv-bg'] : [style.fg, style.bg]
    const classes = []
    for (const [kind, c] of [['fg', fg], ['bg', bg]]) {
      if (typeof c === 'number') classes.push(`${kind}-${c}`)
      else if (c === 'inv-fg' || c === 'inv-bg') classes.push(c)
      else if (typeof c === 'string') target.style[kind === 'fg' ? 'color' : 'backgroundColor'] = c // CSSOM: allowed by the CSP
    }
    for (const k of ['bold', 'dim', 'italic', 'underline', 'strike']) if (style[k]) classes.push(`sgr-${k}`)
    target.className = classes.join(' ')
    parent.appendChild(target)
  }
  let last = 0
  for (const m of text.matchAll(MARKS)) {
    if (m.index > last) target.appendChild(document.createTextNode(text.slice(last, m.index)))
    const mark = document.createElement('span')
    mark.className = 'ctl'
    mark.textContent = m[0] === '\n' ? '⏎' : `<${hex(m[0])}>`
    mark.title = 'a control character in the text, shown instead of applied'
    target.appendChild(mark)
    last = m.index + m[0].length
  }
  if (last < text.length) target.appendChild(document.createTextNode(text.slice(last)))
}

// Appends `text` to `parent` with its colours; returns parent.
function appendText (parent, text) {
  const style = { fg: null, bg: null }
  let last = 0
  text = String(text ?? '').replace(/\r$/, '') // a CRLF line's end
  for (const m of text.matchAll(ESCAPE)) {
    appendRun(parent, text.slice(last, m.index), style)
    if (m[2] === 'm') applySgr(style, m[1])
    last = m.index + m[0].length
  }
  appendRun(parent, text.slice(last), style)
  return parent
}

// The text a person reads: no escapes (for filters and titles).
function plain (text) {
  return String(text ?? '').replace(ESCAPE, '')
}

export { appendText, plain }
