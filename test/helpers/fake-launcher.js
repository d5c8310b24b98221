'use strict'

const { ProcessHandle } = require('../../daemon/launchers/handle')

// A launcher for unit tests of the app model: no OS process, a handle that comes online on the
// next turn of the event loop and "exits" when signalled. `launched` records every handle.
// boots: false gives handles whose agent never reports the app's entry as run (a boot that
// outlasts listen_timeout).
// exitAfterMs: how long a signalled process takes to exit (default: the next turn).
function fakeLauncher ({ replacesInPlace = true, announcesListening = false, boots = true, exitAfterMs = 0 } = {}) {
  let nextPid = 10000
  const launched = []
  class FakeHandle extends ProcessHandle {
    get announcesListening () { return announcesListening }
    signal (sig) {
      if (this.exited) return false
      const exit = () => { if (!this.exited) this.markExited(null, sig) }
      if (exitAfterMs) setTimeout(exit, exitAfterMs)
      else setImmediate(exit)
      return true
    }
  }
  const launcher = {
    replacesInPlace,
    launch (spec, env) {
      const handle = new FakeHandle({ child: { pid: nextPid++, stdout: null, stderr: null }, reportsBoot: !boots })
      handle.spec = spec
      handle.env = env
      launched.push(handle)
      setImmediate(() => handle.markOnline())
      return handle
    }
  }
  return { launcherFor: () => launcher, launched, live: () => launched.filter((h) => !h.exited) }
}

// A normalized spec with the fields the model reads; settles at once (minUptime 0).
function fakeSpec (name, extra = {}) {
  return { name, script: `/srv/${name}.js`, cwd: '/srv', instances: 1, execMode: 'fork', interpreter: 'node', env: {}, minUptime: 0, listenTimeout: 2000, killTimeout: 200, ...extra }
}

module.exports = { fakeLauncher, fakeSpec }
