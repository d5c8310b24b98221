// The selected process's four charts (uPlot): CPU, memory, heap used, event-loop p99, the last
// MAX_POINTS points (five minutes at one a second). load() starts from the server's history,
// add() appends the figure of each frame.
import UPlot from './vendor/uPlot.esm.js'
import { formatBytes, formatDuration } from './quantity.js'

const MAX_POINTS = 300
const HEIGHT = 140
const KEYS = ['cpu', 'memory', 'heapUsed', 'elP99']
const SPECS = {
  cpu: { el: 'chart-cpu', title: 'CPU', fmt: (n) => `${Math.round(n)}%`, color: '#1f6feb', floor: 5 },
  memory: { el: 'chart-memory', title: 'memory (RSS)', fmt: formatBytes, color: '#8250df', floor: 1 },
  heapUsed: { el: 'chart-heap', title: 'heap used', fmt: formatBytes, color: '#1a7f37', floor: 1 },
  elP99: { el: 'chart-el', title: 'event-loop p99', fmt: (n) => formatDuration(n), color: '#bf3989', floor: 1 }
}

const pad = (n) => String(n).padStart(2, '0')
// a tick (seconds since the epoch) as local 24-hour time, the seconds only when not :00
function timeLabel (t) {
  const d = new Date(t * 1000)
  return `${pad(d.getHours())}:${pad(d.getMinutes())}` + (d.getSeconds() ? `:${pad(d.getSeconds())}` : '')
}

class Charts {
  constructor () {
    this.plots = {}
    this.data = { at: [] }
    for (const key of KEYS) {
      this.data[key] = []
      this.plots[key] = this.make(key, SPECS[key])
    }
    window.addEventListener('resize', () => {
      for (const key of KEYS) this.plots[key].setSize({ width: this.widthOf(SPECS[key].el), height: HEIGHT })
    })
  }

  widthOf (id) {
    return Math.max(200, document.getElementById(id).clientWidth || 300)
  }

  make (key, spec) {
    return new UPlot({
      title: spec.title,
      width: this.widthOf(spec.el),
      height: HEIGHT,
      legend: { show: false },
      cursor: { show: true, drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: (u, min, max) => [0, Math.max(max || 0, spec.floor) * 1.1] } },
      // a label is at most 8 characters (14:05:09): 80 px apart they never touch
      axes: [{ space: 80, values: (u, ticks) => ticks.map(timeLabel) }, { size: 72, values: (u, ticks) => ticks.map(spec.fmt) }],
      series: [{}, { label: spec.title, stroke: spec.color, fill: spec.color + '22', width: 1.5, points: { show: false } }]
    }, [[], []], document.getElementById(spec.el))
  }

  draw () {
    const xs = this.data.at.map((t) => t / 1000)
    for (const key of KEYS) this.plots[key].setData([xs, this.data[key]])
  }

  // history: { at: [], cpu: [], ... } as /api/history answers
  load (history) {
    for (const key of ['at', ...KEYS]) this.data[key] = (history[key] || []).slice(-MAX_POINTS)
    this.draw()
  }

  // point: { at, cpu, memory, heapUsed, elP99 }
  add (point) {
    const at = this.data.at
    if (at.length && at[at.length - 1] >= point.at) return
    for (const key of ['at', ...KEYS]) {
      this.data[key].push(point[key] ?? null)
      if (this.data[key].length > MAX_POINTS) this.data[key].shift()
    }
    this.draw()
  }
}

export { Charts, timeLabel }
