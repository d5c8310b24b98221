'use strict'

const { projector, wants } = require('../lib/shared/process-fields')
const { pidFilePath } = require('./launchers/app-options')

// What `list` and `show` reply: the supervisor's instances as rows, with the figures of the
// metrics and, for `show`, the spec, log paths and history.
// fields: only these (lib/shared/process-fields.js), for replies that carry only what is shown.
function listRows (supervisor, { fields = null } = {}) {
  const rows = supervisor.allInstances().map((i) => i.toJSON(supervisor.metrics))
  return fields ? rows.map(projector(fields)) : rows
}

// Read-only: `all` with no process shows nothing (the commands that act on it fail instead).
function showRows (supervisor, target, { fields = null } = {}) {
  const instances = supervisor.resolve(target, { allowEmpty: true })
  const history = wants(fields, 'history')
  const rows = instances.map((inst) => ({
    ...inst.toJSON(supervisor.metrics),
    spec: inst.spec,
    lastRestartDelay: inst.lastRestartDelay,
    logs: supervisor.logSink ? supervisor.logSink.paths(inst.spec, inst.index) : null,
    history: supervisor.metrics && history ? supervisor.metrics.history(inst.id) : [],
    // the environment the process gets (`xpm env <id>`), only when asked for by name
    ...(fields?.includes('env') ? { env: inst.env() } : {}),
    ...(fields?.includes('pm2Io') ? { pm2Io: supervisor.pm2Io.get(inst.id) ?? null } : {}), // @pm2/io metrics (daemon/pm2-io.js)
    ...(fields?.includes('pidFile') ? { pidFile: pidFilePath(inst.spec, inst.index, supervisor.pidsDir) } : {})
  }))
  return fields ? rows.map(projector(fields)) : rows
}

module.exports = { listRows, showRows }
