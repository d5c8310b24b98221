'use strict'

// The variables one instance gets on top of its app's environment (daemon/model/instance.js),
// from the spec alone, so the CLI's docs and the daemon agree:
//  - instance_var (default NODE_APP_INSTANCE): the instance number, 0 … N-1;
//  - increment_var: its value in the app's env (say PORT=4000) plus the instance number, so
//    instances 0, 1, 2 get 4000, 4001, 4002 (0, 1, 2 when the app's env does not set it).
function instanceEnv (spec, index) {
  const env = { [spec.instanceVar || 'NODE_APP_INSTANCE']: String(index) }
  if (spec.incrementVar) {
    const base = Number.parseInt(spec.env?.[spec.incrementVar], 10)
    env[spec.incrementVar] = String((Number.isSafeInteger(base) ? base : 0) + index)
  }
  return env
}

module.exports = { instanceEnv }
