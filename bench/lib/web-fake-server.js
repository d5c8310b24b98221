'use strict'

// `xpm web`'s server fed by the tests' fake daemon client (test/helpers/fake-web-daemon.js) with
// N processes, for the page-at-1,000-processes figures: a real daemon with 1,000 Node processes
// does not fit on a 2-core machine next to a browser. Prints the URL; runs until SIGTERM.
const { WebServer } = require('../../lib/cli/web/server')
const { createFakeDaemon } = require('../../test/helpers/fake-web-daemon')

async function main () {
  const count = Number(process.argv[2] || 1000)
  const server = await new WebServer({ connect: createFakeDaemon({ count }).connect, port: 0 }).listen()
  process.stdout.write(server.url + '\n')
  process.once('SIGTERM', () => server.close().then(() => process.exit(0)))
}

main()
