'use strict'

// The runtime's own exit status, from how its apps ended (pure: instances in, number out).
// A stop we asked for is graceful whether the app exited 0 or died of the stop signal; an app
// that had to be SIGKILLed after kill_timeout gives 137, a crash-looping ('errored') one or a
// non-zero exit code gives that code, so an orchestrator sees the failure.
function runtimeExitCode (instances) {
  for (const inst of instances) {
    const exit = inst.lastExit
    if (inst.status === 'errored') return exit?.code || 1
    if (!exit) continue
    if (exit.signal === 'SIGKILL') return 137
    if (Number.isInteger(exit.code) && exit.code !== 0 && !(inst.spec?.stopExitCodes || []).includes(exit.code)) return exit.code
  }
  return 0
}

// Every instance is done (stopped or errored): nothing is running, starting or waiting.
function allEnded (instances) {
  return instances.length > 0 && instances.every((i) => i.status === 'stopped' || i.status === 'errored')
}

module.exports = { runtimeExitCode, allEnded }
