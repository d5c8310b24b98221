'use strict'

// Runs the dashboard until SIGINT or SIGTERM: the foreground `xpm web` and lib/cli/web/serve.js (the
// same, as an app of xpm) both come here. Resolves with the exit code. The address with its token
// is printed only by a foreground run (to the terminal of whoever started it): as an app, stdout
// is the app's out log, readable by others (0644) and by `xpm logs`, so serve.js prints the
// address alone and the token stays in XPM_HOME/web-<name>.token (0600).

const { WebServer, displayHost } = require('./server')
const { isLoopback } = require('./security')

// lanes: [{ label, connect }], one per host of `xpm web --hosts` (instead of this machine's daemon)
async function runWeb ({ options, token, home, stdout = process.stdout, stderr = process.stderr, signals = process, connect, lanes = null, onListening = () => {}, tokenFile = null }) {
  const { connect: connectDaemon } = require('../client')
  const server = new WebServer({
    ...options,
    token,
    lanes,
    connect: connect || (() => connectDaemon({ home, autoStart: false }))
  })
  await server.listen()
  onListening()
  if (!isLoopback(options.host)) {
    stderr.write(`[xpm] warning: xpm web listens on ${options.host}, not only on this machine: anyone who can reach port ${server.port} and has the token can ${options.readOnly ? 'see your apps' : 'restart and stop your apps'}. Prefer the default (127.0.0.1) and an SSH tunnel (docs/web.md)${options.readOnly ? '' : ', or add --read-only'}.\n`)
  }
  const listening = options.publicUrl ? ` (listening on ${displayHost(options.host)}:${server.port})` : ''
  const where = (tokenFile ? `${server.address} (its token is in ${tokenFile})` : server.url) + listening
  const of = lanes ? ` of ${lanes.length} host${lanes.length === 1 ? '' : 's'} (${lanes.map((l) => l.label).join(', ')})` : ''
  stdout.write(`[xpm] web dashboard${of}${options.readOnly ? ' (read-only)' : ''}: ${where}\n`)
  await new Promise((resolve) => {
    const stopListening = require('../io').onSignals(signals, ['SIGINT', 'SIGTERM'], () => {
      stopListening()
      resolve()
    })
  })
  await server.close()
  return 0
}

module.exports = { runWeb }
