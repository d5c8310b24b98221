'use strict'

const { summarize, ratio } = require('./stats')
const { num, find, med } = require('./figures')

// The targets of issue 27, "closer to the floor".
const FLOOR_TARGETS = [
  {
    text: 'idle daemon CPU at 100 apps at most 0.1 % of a core',
    check: (m) => {
      const cpu = med(find(m, 'idle.apps100.cpu'), 'xpm')
      return cpu === undefined ? null : { met: cpu <= 0.1, detail: `xpm ${num(cpu)} %, PM2 ${num(med(find(m, 'idle.apps100.cpu'), 'pm2'))} %` }
    }
  },
  {
    text: '100 fork apps online within 1.15 × the parallel-spawn floor',
    check: (m) => {
      const row = find(m, 'scale.apps100.online')
      const r = ratio(summarize(row?.series.xpm), summarize(row?.series.raw))
      return r === null ? null : { met: r <= 1.15, detail: `xpm ${num(med(row, 'xpm'))} ms, floor ${num(med(row, 'raw'))} ms: xpm/floor ${r.toFixed(2)}` }
    }
  },
  {
    text: 'the daemon\'s event loop never blocked more than 50 ms while it starts 100 fork apps (longest stall, every run)',
    check: (m) => {
      const row = find(m, 'scale.apps100.loop')
      const worst = summarize(row?.series.xpm)?.max
      return worst === undefined ? null : { met: worst <= 50, detail: `xpm ${num(worst)} ms (median ${num(med(row, 'xpm'))} ms), PM2 ${num(med(row, 'pm2'))} ms` }
    }
  },
  {
    text: '1,000 processes (10 apps × 100 instances) online within 1.3 × the parallel-spawn floor',
    check: (m) => {
      const row = find(m, 'scale.fleet10x100.online')
      const r = ratio(summarize(row?.series.xpm), summarize(row?.series.raw))
      return r === null ? null : { met: r <= 1.3, detail: `xpm ${num(med(row, 'xpm'))} ms, PM2 ${num(med(row, 'pm2'))} ms, floor ${num(med(row, 'raw'))} ms: xpm/floor ${r.toFixed(2)}` }
    }
  },
  {
    text: 'while a dashboard shows 10 of 100 apps, daemon CPU at most 0.3 × what watching all 100 costs',
    check: (m) => {
      const some = med(find(m, 'idle.apps100.watchSome'), 'xpm')
      const all = med(find(m, 'idle.apps100.watchAll'), 'xpm')
      return some === undefined || all === undefined ? null : { met: some <= 0.3 * all, detail: `xpm ${num(some)} % watching 10, ${num(all)} % watching all: ${(some / all).toFixed(2)} ×` }
    }
  },
  {
    text: 'while `monit` shows about 20 of 1,000 processes, daemon CPU no more than PM2\'s, and a subscriber of 20 at most 0.1 × one of all 1,000',
    check: (m) => {
      const monit = find(m, 'watch.monit.daemon')
      const some = med(find(m, 'watch.sub.some'), 'xpm')
      const all = med(find(m, 'watch.sub.all'), 'xpm')
      const x = med(monit, 'xpm')
      const p = med(monit, 'pm2')
      if ([some, all, x, p].includes(undefined)) return null
      return { met: x <= p && some <= 0.1 * all, detail: `monit: xpm ${num(x)} %, PM2 ${num(p)} %, xpm before ${num(med(monit, 'raw'))} %; a subscriber of 20: ${num(some)} %, of all: ${num(all)} % (${(some / all).toFixed(2)} ×)` }
    }
  },
  {
    text: 'daemon RSS at 100 apps at most 0.8 × PM2\'s',
    check: (m) => {
      const row = find(m, 'idle.apps100.rss')
      const r = ratio(summarize(row?.series.xpm), summarize(row?.series.pm2))
      return r === null ? null : { met: r <= 0.8, detail: `xpm ${num(med(row, 'xpm'))} MB, PM2 ${num(med(row, 'pm2'))} MB: xpm/PM2 ${r.toFixed(2)}` }
    }
  },
  ...[['fork', 1.2], ['cluster', 1.5]].map(([mode, bound]) => ({
    text: `crash to serving again, ${mode} mode, within ${bound} × a bare \`node\` start`,
    check: (m) => {
      const row = find(m, `crash.${mode}`)
      const r = ratio(summarize(row?.series.xpm), summarize(row?.series.raw))
      return r === null ? null : { met: r <= bound, detail: `xpm ${num(med(row, 'xpm'))} ms, PM2 ${num(med(row, 'pm2'))} ms, floor ${num(med(row, 'raw'))} ms: xpm/floor ${r.toFixed(2)}` }
    }
  }))
]

module.exports = { FLOOR_TARGETS }
