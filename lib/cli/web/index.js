'use strict'

// Runs the dashboard until SIGINT or SIGTERM: the foreground `xpm web` and lib/cli/web/serve.js (the
// same, as an app of xpm) both come here. Resolves with the exit code.

const { WebServer } = require('./server')
const { isLoopback } = require('./security')

async function runWeb ({ options, token, home, stdout = process.stdout, stderr = process.stderr, connect, onListening = () => {} }) {
  const { connect: connectDaemon } = require('../client')
  const server = new WebServer({
    ...options,
    token,
    connect: connect || (() => connectDaemon({ home, autoStart: false }))
  })
  await server.listen()
  onListening()
  if (!isLoopback(options.host)) {
    stderr.write(`[xpm] warning: xpm web listens on ${options.host}, not only on this machine: anyone who can reach port ${server.port} and has the token can ${options.readOnly ? 'see your apps' : 'restart and stop your apps'}. Prefer the default (127.0.0.1) and an SSH tunnel (docs/web.md)${options.readOnly ? '' : ', or add --read-only'}.\n`)
  }
  stdout.write(`[xpm] web dashboard${options.readOnly ? ' (read-only)' : ''}: ${server.url}\n`)
  await new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done)
      process.off('SIGTERM', done)
      resolve()
    }
    process.on('SIGINT', done)
    process.on('SIGTERM', done)
  })
  await server.close()
  return 0
}

module.exports = { runWeb }
