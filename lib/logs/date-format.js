'use strict'

// A small PM2-like date format: YYYY MM DD HH mm ss SSS Z (+01:00) ZZ (+0100), text in [brackets]
// kept as is. Custom formats use local time; no format means ISO 8601 in UTC (toISOString).
const TOKENS = /\[([^\]]*)]|YYYY|MM|DD|HH|mm|ss|SSS|ZZ|Z/g

const pad = (n, width = 2) => String(n).padStart(width, '0')

function offset (d, sep) {
  const minutes = -d.getTimezoneOffset()
  const abs = Math.abs(minutes)
  return (minutes < 0 ? '-' : '+') + pad(Math.floor(abs / 60)) + sep + pad(abs % 60)
}

const FIELDS = {
  YYYY: (d) => String(d.getFullYear()),
  MM: (d) => pad(d.getMonth() + 1),
  DD: (d) => pad(d.getDate()),
  HH: (d) => pad(d.getHours()),
  mm: (d) => pad(d.getMinutes()),
  ss: (d) => pad(d.getSeconds()),
  SSS: (d) => pad(d.getMilliseconds(), 3),
  Z: (d) => offset(d, ':'),
  ZZ: (d) => offset(d, '')
}

function compileDateFormat (format) {
  if (!format) return cached((ms) => new Date(ms).toISOString())
  const parts = []
  let last = 0
  for (const m of format.matchAll(TOKENS)) {
    if (m.index > last) parts.push(format.slice(last, m.index))
    parts.push(m[1] !== undefined ? m[1] : FIELDS[m[0]])
    last = m.index + m[0].length
  }
  if (last < format.length) parts.push(format.slice(last))
  return cached((ms) => {
    const d = new Date(ms)
    let s = ''
    for (const p of parts) s += typeof p === 'string' ? p : p(d)
    return s
  })
}

// A burst of lines shares a few timestamps; formatting each once is enough.
function cached (fn) {
  let lastMs = NaN
  let lastText = ''
  return (ms) => {
    if (ms !== lastMs) {
      lastMs = ms
      lastText = fn(ms)
    }
    return lastText
  }
}

module.exports = { compileDateFormat }
