'use strict'

// The V8 flags the daemon's own Node runs with (never its apps': the launchers pass each app's
// execArgv explicitly). Measured with 100 idle apps (bench/findings.md, "Idle cost"):
// - --max-semi-space-size=1: the young generation stays at 1 MB a semi-space. Left to grow
//   (up to 16 MB on 64-bit), a start of 100 apps grew the heap to 47 MB committed and the
//   daemon to 78 MB RSS until the memory reducer shrank it about a minute later; bounded, 63 MB
//   from the start. The cost: more, smaller scavenges while it allocates (a start of 100 apps:
//   ~80 instead of ~16, a fraction of a millisecond each).
// - one memory-reducer GC, not three: after a burst the memory reducer ran three full
//   mark-compacts of the ~12 MB heap (about 120 ms of CPU in all: 0.15 % of a core over the
//   minute that holds them, against 0.05 % steady); the first one gave back all there was
//   (15 → 12 MB), the next two nothing. Without the reducer at all the heap keeps ~3 MB more.
//   The flag's name changed in V8 12 (Node 22).
function daemonNodeFlags (version = process.version) {
  const major = Number(/^v(\d+)/.exec(version)?.[1])
  const oneReducerGc = major >= 22 ? '--memory-reducer-gc-count=1' : '--memory-reducer-single-gc'
  return ['--max-semi-space-size=1', oneReducerGc]
}

module.exports = { daemonNodeFlags }
