'use strict'

// `xpm jlist --pm2` and `xpm prettylist --pm2`: the process list in PM2's shape, for the fields
// monitoring scripts read from `pm2 jlist` (docs/migrating-from-pm2.md), with the environment as
// PM2 prints it. xpm's own `jlist` keeps its flatter shape, without the environment. Pure.

// What the daemon sends for it (a `show` of every process, these fields only).
const PM2_FIELDS = [
  'id', 'name', 'namespace', 'instance', 'pid', 'status', 'restarts', 'uptime', 'createdAt', 'mode', 'cpu', 'memory', 'lastExit', 'logs',
  'spec.script', 'spec.cwd', 'spec.args', 'spec.nodeArgs', 'spec.interpreter', 'spec.instances', 'spec.watch', 'spec.autorestart', 'spec.namespace', 'spec.instanceVar',
  'spec.incrementVar', 'env', 'pm2Io', 'pidFile'
]

// The process's environment as PM2 shows it: under pm2_env.env and, for each variable, at the top
// of pm2_env; the instance number only as pm2_env's own field, an increment_var as a number.
function pm2Env (p, s) {
  const env = { ...(p.env || {}) }
  delete env[s.instanceVar || 'NODE_APP_INSTANCE']
  if (s.incrementVar && /^\d+$/.test(env[s.incrementVar] ?? '')) env[s.incrementVar] = Number(env[s.incrementVar])
  return env
}

function toPm2 (p, { now = Date.now() } = {}) {
  const s = p.spec || {}
  const online = p.status === 'online'
  const env = pm2Env(p, s)
  return {
    name: p.name,
    pm_id: p.id,
    pid: p.pid || 0,
    monit: { cpu: p.cpu ?? 0, memory: p.memory ?? 0 },
    pm2_env: {
      ...env,
      name: p.name,
      namespace: p.namespace ?? s.namespace ?? 'default',
      pm_id: p.id,
      status: p.status,
      restart_time: p.restarts ?? 0,
      unstable_restarts: 0,
      // when the process came online (ms since the epoch), as PM2 gives it; the creation time
      // of the slot while it is not online
      pm_uptime: online ? now - (p.uptime || 0) : p.createdAt,
      created_at: p.createdAt,
      exec_mode: p.mode === 'cluster' ? 'cluster_mode' : 'fork_mode',
      instances: s.instances ?? 1,
      [s.instanceVar || 'NODE_APP_INSTANCE']: p.instance, // under its instance_var, as PM2
      pm_exec_path: s.script,
      pm_cwd: s.cwd,
      exec_interpreter: s.interpreter,
      ...(s.nodeArgs === null ? {} : { node_args: s.nodeArgs ?? [] }), // null: taken away by `--node-args=null`, as PM2
      args: s.args ?? [],
      // as PM2: a stopped app is not watched (xpm watches it again when it starts)
      watch: ['stopped', 'errored'].includes(p.status) ? false : Array.isArray(s.watch) ? s.watch.length > 0 : Boolean(s.watch),
      autorestart: s.autorestart !== false,
      exit_code: p.lastExit?.code ?? null,
      pm_out_log_path: p.logs?.out ?? null,
      pm_err_log_path: p.logs?.err ?? null,
      ...(p.logs?.combined ? { pm_log_path: p.logs.combined } : {}), // as PM2: only with a combined log
      ...(p.pidFile ? { pm_pid_path: p.pidFile } : {}),
      axm_monitor: p.pm2Io ?? {}, // the app's @pm2/io metrics, as it last sent them
      env
    }
  }
}

function renderPm2List (rows, options) {
  return rows.map((p) => toPm2(p, options))
}

module.exports = { PM2_FIELDS, toPm2, renderPm2List }
