'use strict'

// How many terminal columns a string takes: 日本語 and most emoji take two each, combining marks
// none. Measured by string-width (v4, the CommonJS major cli-table3 itself uses, so tables drawn
// either way agree), with a fast path for printable ASCII, which is nearly every cell.
// Strings here carry no colour codes: callers colour after measuring. The fast path also takes
// the few one-column symbols the tables themselves print ('↺' in the list header, '…', the box):
// an ASCII table never loads string-width.

const PRINTABLE_ASCII = /^[\x20-\x7e↺…─│┌┬┐└┴┘]*$/
let stringWidth = null

function displayWidth (text) {
  text = String(text)
  if (PRINTABLE_ASCII.test(text)) return text.length
  stringWidth ??= require('string-width')
  return stringWidth(text)
}

// At most `width` columns, ending in '…' when cut, as cli-table3 cuts a cell ('日本…'), but whole
// characters only (cli-table3 cuts UTF-16 units and can leave half an emoji).
function truncateWidth (text, width, ellipsis = '…') {
  text = String(text)
  if (displayWidth(text) <= width) return text
  const room = width - displayWidth(ellipsis)
  if (PRINTABLE_ASCII.test(text)) return text.slice(0, Math.max(0, room)) + ellipsis
  let out = ''
  let used = 0
  for (const ch of text) {
    const w = displayWidth(ch)
    if (used + w > room) break
    out += ch
    used += w
  }
  return out + ellipsis
}

function padEndWidth (text, width) {
  text = String(text)
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)))
}

function padStartWidth (text, width) {
  text = String(text)
  return ' '.repeat(Math.max(0, width - displayWidth(text))) + text
}

module.exports = { displayWidth, truncateWidth, padEndWidth, padStartWidth }
