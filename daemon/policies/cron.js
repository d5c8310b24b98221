'use strict'

const { Cron } = require('croner')

// cron_restart: one croner job per app, in the daemon's local time. A fire while the previous
// cron restart still runs is skipped (croner's overrun protection), so slow reloads never pile up.
function createCronJob ({ spec, onFire, logger }) {
  const job = new Cron(spec.cronRestart, { protect: true }, async () => {
    logger?.info({ event: 'cron', app: spec.name, pattern: spec.cronRestart }, `${spec.name}: cron_restart "${spec.cronRestart}" fired`)
    try {
      await onFire('cron')
    } catch (err) {
      logger?.warn({ event: 'cron', app: spec.name, err: err.message }, `${spec.name}: cron restart failed: ${err.message}`)
    }
  })
  return {
    nextRun: () => job.nextRun(),
    close: () => job.stop()
  }
}

module.exports = { createCronJob }
