'use strict'

const path = require('node:path')

const DEV_NULL = '/dev/null'

// Where an app's lines go, with PM2's names. Defaults: <logsDir>/<name>-out.log and
// <name>-error.log, one pair per app; perInstance (PM2's merge_logs: false, the default of a
// cluster app) gives each instance its own: <name>-out-<instance>.log. A file the app names
// (-o, -e, -l) is split by PM2's rule: a name ending in `.log` (or `-<digits>.log`, whose digits
// are replaced) becomes `-<instance>.log` (`-o out.log` → out-0.log, out-1.log); any other name
// (`-l logs.txt`) is one file shared by every instance, written by one writer (LogSink.file).
// The suffix is the instance number (NODE_APP_INSTANCE), which PM2's pm_id equals for a first
// app, so a file keeps its name when ids change.
function logPaths (spec, logsDir, instance = 0) {
  const logs = spec.logs || {}
  const base = String(spec.name).replace(/[/\\]/g, '_')
  const perInstance = Boolean(logs.perInstance)
  const byDefault = (kind) => path.join(logsDir, perInstance ? `${base}-${kind}-${instance}.log` : `${base}-${kind}.log`)
  const custom = (file) => {
    const abs = path.resolve(spec.cwd || logsDir, file)
    return perInstance ? perInstanceName(abs, instance) : abs
  }
  return {
    out: logs.outFile ? custom(logs.outFile) : byDefault('out'),
    err: logs.errorFile ? custom(logs.errorFile) : byDefault('error'),
    combined: logs.logFile ? custom(logs.logFile) : null
  }
}

// PM2's rule, case and all: `app.log` and `app-7.log` → `app-<instance>.log`; `logs.txt`,
// `app.LOG` and /dev/null unchanged.
function perInstanceName (file, instance) {
  return file.replace(/(-[0-9]+)?\.log$/, `-${instance}.log`)
}

// Rotation options in rotating-file-stream's terms. Classical logrotate naming: the newest
// rotated file is <file>.1 (<file>.1.gz when compressed), the oldest <file>.<maxFiles>.
const DEFAULT_ROTATE = { size: 10 * 1024 * 1024, maxFiles: 10, interval: null, compress: false }

function normalizeRotate (rotate) {
  if (rotate === false) return null
  const r = { ...DEFAULT_ROTATE, ...(rotate || {}) }
  const maxFiles = Number.isInteger(r.maxFiles) && r.maxFiles >= 0 ? r.maxFiles : DEFAULT_ROTATE.maxFiles
  return {
    size: Number(r.size) > 0 ? Math.floor(Number(r.size)) : null,
    maxFiles,
    interval: rfsInterval(r.interval),
    compress: Boolean(r.compress)
  }
}

// rotating-file-stream wants "<n><unit>" with seconds and minutes dividing 60 and hours 24. A
// duration in ms becomes the longest such interval not above it (at least one second).
const STEPS = [
  ...[1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30].map((n) => [n * 1000, `${n}s`]),
  ...[1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30].map((n) => [n * 60000, `${n}m`]),
  ...[1, 2, 3, 4, 6, 8, 12].map((n) => [n * 3600000, `${n}h`])
]

function rfsInterval (interval) {
  if (!interval) return null
  if (typeof interval === 'string') return interval
  const ms = Number(interval)
  if (!(ms > 0)) return null
  if (ms >= 86400000) return `${Math.floor(ms / 86400000)}d`
  let best = STEPS[0][1]
  for (const [stepMs, text] of STEPS) if (stepMs <= ms) best = text
  return best
}

function rfsOptions (rotate) {
  const options = {}
  if (!rotate || (!rotate.size && !rotate.interval)) return options
  if (rotate.size) options.size = `${rotate.size}B`
  if (rotate.interval) options.interval = rotate.interval
  // maxFiles 0 keeps one rotated file, removed as soon as it is made (see FileSink).
  options.rotate = Math.max(1, rotate.maxFiles)
  if (rotate.compress) options.compress = 'gzip'
  return options
}

// Newest first: the file being written, then its plain rotated files (compressed ones are not
// read back for history).
function historyFiles (file, rotate) {
  const files = [file]
  if (rotate && !rotate.compress && (rotate.size || rotate.interval)) {
    for (let i = 1; i <= Math.max(1, rotate.maxFiles); i++) files.push(`${file}.${i}`)
  }
  return files
}

module.exports = { logPaths, perInstanceName, normalizeRotate, rfsOptions, rfsInterval, historyFiles, DEV_NULL, DEFAULT_ROTATE }
