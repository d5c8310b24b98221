'use strict'

const path = require('node:path')
const { createDebouncer } = require('./debounce')
const { createIgnore } = require('./ignore')
const { watchTree } = require('./tree-watcher')
const { SPEC_DEFAULTS } = require('../../lib/shared/config/spec-defaults')

// The file watch of one app: changes under spec.watch, minus ignored paths, debounced by
// spec.watchDelay into one call of onTrigger(reason, { file, changes }). While a triggered
// restart runs, further changes are collected and trigger once more after it.
function createAppWatcher ({ spec, home = null, logFiles = [], onTrigger, logger, clock }) {
  const ignored = createIgnore({ cwd: spec.cwd, home, patterns: spec.ignoreWatch || [], logFiles })
  let running = false
  let again = null

  const debouncer = createDebouncer({
    delay: spec.watchDelay ?? SPEC_DEFAULTS.watchDelay,
    clock,
    onFire: (file, changes) => fire(file, changes)
  })

  async function fire (file, changes) {
    if (closed) return
    if (running) {
      again = again ?? { file, changes: 0 }
      again.changes += changes
      return
    }
    running = true
    try {
      const shown = displayPath(spec.cwd, file)
      logger?.info({ event: 'watch', app: spec.name, path: file, changes }, `${spec.name}: ${shown} changed${changes > 1 ? ` (and ${changes - 1} more)` : ''}, restarting`)
      await onTrigger(`watch: ${shown}`, { file, changes })
    } catch (err) {
      logger?.warn({ event: 'watch', app: spec.name, err: err.message }, `${spec.name}: restart after a change failed: ${err.message}`)
    } finally {
      running = false
    }
    if (again && !closed) {
      const next = again
      again = null
      await fire(next.file, next.changes)
    }
  }

  let closed = false
  const tree = watchTree(spec.watch, {
    ignored,
    onChange: (file) => debouncer.push(file),
    onError: (err) => logger?.warn({ event: 'watch', app: spec.name, err: err.message }, `${spec.name}: ${err.message}`)
  })
  tree.ready.then((dirs) => {
    if (!closed) logger?.info({ event: 'watch', app: spec.name, paths: spec.watch, dirs }, `${spec.name}: watching ${spec.watch.join(', ')} (${dirs} folder${dirs === 1 ? '' : 's'})`)
  }, () => {})

  return {
    ready: tree.ready,
    close () {
      closed = true
      debouncer.cancel()
      tree.close()
    }
  }
}

// A path inside the app's folder is shown relative to it, others in full.
function displayPath (cwd, file) {
  const rel = path.relative(cwd, file)
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file
}

// The watch settings that, when changed by a new spec, mean a new watcher.
function watchKey (spec) {
  return spec.watch ? JSON.stringify([spec.watch, spec.ignoreWatch, spec.watchDelay, spec.cwd, spec.logs]) : null
}

module.exports = { createAppWatcher, displayPath, watchKey }
