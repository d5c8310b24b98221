'use strict'

const { XpmError } = require('../lib/shared/errors')

// The daemon's phases (docs/architecture.md, "The daemon's phases"):
//   recovering     ending what a crashed predecessor left and registering the saved intent;
//                  a command that changes something waits for the end of it, then applies to
//                  the restored apps (`xpm stop all` during a recovery stays a stop);
//   serving        commands run at once;
//   shutting-down  `xpm kill` (or a signal) was accepted; every new command is refused with
//                  XPM_ERR_SHUTTING_DOWN (the CLI waits for the daemon to exit and starts a new
//                  one), never applied to a daemon that is exiting.
// Reads (list, show, logs, why) are answered in every phase.
class DaemonPhase {
  constructor ({ recovering = true } = {}) {
    this.name = recovering ? 'recovering' : 'serving'
    this.served = recovering ? new Promise((resolve) => { this.markServing = resolve }) : Promise.resolve()
  }

  serve () {
    if (this.name !== 'recovering') return
    this.name = 'serving'
    this.markServing()
  }

  shutDown () {
    this.name = 'shutting-down'
    this.markServing?.()
  }

  // Resolves when a command that changes something may run; rejects once shutting down.
  async admit () {
    if (this.name === 'recovering') await this.served
    if (this.name === 'shutting-down') throw shuttingDown()
  }
}

function shuttingDown () {
  return new XpmError('XPM_ERR_SHUTTING_DOWN', 'The xpm daemon is shutting down (xpm kill); it takes no new commands')
}

module.exports = { DaemonPhase, shuttingDown }
