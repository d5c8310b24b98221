'use strict'

// `node xpm-rows.js <xpm root>`: prints the daemon's process rows (XPM_HOME from the environment)
// with the fields a poll for "all online" needs, as JSON on one line — what `xpm list` asks for
// its table. A `jlist` returns every agent's figures, so each one puts every agent at the full
// report rate for 10 s (docs/metrics.md): polled every 250 ms it would keep 1,000 agents waking
// their processes 100 times a second each, a cost of the harness, not of the start it times.
// One Node process per poll, as `xpm jlist` and `pm2 jlist` are.
const path = require('node:path')

async function main () {
  const root = process.argv[2]
  const { connect } = require(path.join(root, 'lib', 'cli', 'client'))
  const client = await connect({ home: process.env.XPM_HOME, autoStart: false })
  try {
    const rows = await client.request('list', { fields: ['id', 'name', 'pid', 'status', 'uptime', 'restarts'] })
    process.stdout.write(JSON.stringify(rows) + '\n')
  } finally {
    client.close()
  }
}

main().catch((err) => {
  process.stderr.write(`${err.message}\n`)
  process.exitCode = 1
})
