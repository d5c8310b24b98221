'use strict'

// log_date_format and `xpm logs --timestamp <fmt>` as PM2 reads them: formatted by dayjs, so
// every token PM2 accepts works (YYYY YY M MM MMM MMMM D DD d dd ddd dddd H HH h hh A a m mm
// s ss SSS Z ZZ, text in [brackets]), in local time. No format means ISO 8601 in UTC.
// Cheap per line: dayjs is asked at most once per second of log time (once per millisecond
// when the format shows milliseconds); lines within it reuse the text.
function compileDateFormat (format) {
  if (!format) return memo((ms) => new Date(ms).toISOString(), 1)
  const dayjs = require('dayjs')
  const subSecond = /S/.test(format.replace(/\[[^\]]*]/g, ''))
  return memo((ms) => dayjs(ms).format(format), subSecond ? 1 : 1000)
}

// A burst of lines shares a few timestamps: the text of the last bucket of `unit` ms is kept.
function memo (fn, unit) {
  let lastBucket = NaN
  let lastText = ''
  return (ms) => {
    const bucket = Math.floor(ms / unit)
    if (bucket !== lastBucket) {
      lastBucket = bucket
      lastText = fn(ms)
    }
    return lastText
  }
}

module.exports = { compileDateFormat }
