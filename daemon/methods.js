'use strict'

const { XpmError } = require('../lib/errors')
const { checkSpecs } = require('./check-specs')

// The socket's method table: each entry validates its params and calls one room of the daemon.
function createMethods ({ supervisor, logSink, metrics, shutdown, version, persistence = null }) {
  const target = (params) => {
    if (typeof params.target !== 'string' && typeof params.target !== 'number') {
      throw new XpmError('XPM_ERR_BAD_ARGUMENT', 'Expected `target` to be an app name, a process id or "all"')
    }
    return String(params.target)
  }

  const progressTo = (conn) => (event) => conn.push('progress', event)

  return {
    ping: () => ({ pong: true, pid: process.pid, version, uptime: Math.round(process.uptime() * 1000) }),

    // Long operations push a 'progress' event per process as it comes online (or fails).
    start: (params, conn) => supervisor.start(checkSpecs(params.specs), { force: params.force === true, onProgress: progressTo(conn) }),
    startTarget: (params, conn) => supervisor.startTarget(target(params), { onProgress: progressTo(conn) }),
    stop: (params, conn) => supervisor.stop(target(params), { onProgress: progressTo(conn) }),
    restart: (params, conn) => supervisor.restart(target(params), { onProgress: progressTo(conn) }),
    delete: (params, conn) => supervisor.delete(target(params), { onProgress: progressTo(conn) }),
    list: () => supervisor.list(),
    show: (params) => supervisor.show(target(params)),

    reload: (params, conn) => {
      return supervisor.reload(target(params), {
        specs: params.specs ? checkSpecs(params.specs) : null,
        onStep: (step) => conn.push('reload.step', step)
      })
    },

    // Live process list (about 1 Hz, after each metrics sample) and log lines for `xpm monit`.
    subscribe: (params, conn) => {
      const topics = new Set(Array.isArray(params.topics) ? params.topics : ['processes'])
      if (topics.has('processes') && metrics) {
        const onSample = () => conn.push('processes', supervisor.list())
        metrics.on('sample', onSample)
        conn.onClose(() => metrics.off('sample', onSample))
      }
      if (topics.has('logs') && logSink) {
        const unsubscribe = logSink.subscribe({ names: null, ids: null, streams: new Set(['out', 'err']) }, (line) => conn.push('log', line))
        conn.onClose(unsubscribe)
      }
      const history = {}
      for (const proc of supervisor.allInstances()) history[proc.id] = metrics ? metrics.history(proc.id) : []
      return { processes: supervisor.list(), history }
    },

    logs: async (params, conn) => {
      if (!logSink) throw new XpmError('XPM_ERR_UNKNOWN_METHOD', 'This daemon has no log sink')
      const filter = { names: null, ids: null, streams: new Set(params.streams || ['out', 'err']) }
      if (params.target !== undefined && params.target !== 'all') {
        const instances = supervisor.resolve(String(params.target))
        if (supervisor.apps.has(String(params.target))) filter.names = new Set([String(params.target)])
        else filter.ids = new Set(instances.map((i) => i.id))
      }
      const lines = Number.isInteger(params.lines) && params.lines >= 0 ? params.lines : 15
      if (params.follow === false) return { lines: await logSink.tail(filter, lines) }
      const onLine = (line) => conn.push('log', line)
      const history = await logSink.tailAndSubscribe(filter, lines, onLine, (unsubscribe) => conn.onClose(unsubscribe))
      return { lines: history }
    },

    flush: (params) => {
      if (params.target !== undefined && params.target !== 'all') supervisor.resolve(String(params.target))
      return logSink?.flush(params.target && params.target !== 'all' ? String(params.target) : null)
    },
    reloadLogs: () => logSink?.reopen(),
    ...persistence?.methods, // save, resurrect, prepareUpdate, ackRestored
    ...require('./policies/methods').createPolicyMethods({ supervisor, target }), // scale, sendSignal, reset

    // Replies at once; no command is taken from then on (see Supervisor.close).
    kill: () => {
      supervisor.beginClose()
      setImmediate(shutdown)
      return { stopping: supervisor.allInstances().length }
    }
  }
}

module.exports = { createMethods }
