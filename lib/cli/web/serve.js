#!/usr/bin/env node
'use strict'

// The script `xpm web --daemon` starts as an app of xpm (so it restarts on a crash and logs like
// any app): the dashboard with the token kept in XPM_HOME/web-<name>.token (0600), so the URL stays the
// same across restarts (and out of its logs). Arguments: --port, --host, --read-only,
// --allowed-host, --public-url, --token-file.

const { parseArgs } = require('node:util')

async function main () {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'read-only': { type: 'boolean' },
      'allowed-host': { type: 'string', multiple: true },
      'public-url': { type: 'string' },
      'token-file': { type: 'string' },
      home: { type: 'string' }
    }
  })
  const { webOptions } = require('./options')
  const { readPrivateFile } = require('../../shared/safe-fs')
  const options = webOptions({ port: values.port, host: values.host, readOnly: values['read-only'], allowedHost: values['allowed-host'], publicUrl: values['public-url'] })
  const token = (await readPrivateFile(values['token-file'])).trim()
  if (token.length < 16) throw new Error(`${values['token-file']} holds no token`)
  const { runWeb } = require('./index')
  // started with wait_ready (commands/web.js): online, and `xpm web --daemon` done, once it listens
  process.exitCode = await runWeb({ options, token, home: values.home, tokenFile: values['token-file'], onListening: () => process.send?.('ready') })
}

main().catch((err) => {
  process.stderr.write(`xpm web: ${err.message}${err.code ? ` [${err.code}]` : ''}\n`)
  process.exitCode = 1
})
