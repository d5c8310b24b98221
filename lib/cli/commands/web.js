'use strict'

// `xpm web`: the browser dashboard (docs/web.md). In the foreground by default; `--daemon` starts
// it as an app of xpm (lib/cli/web/serve.js) with its token kept in XPM_HOME/web.token.

const path = require('node:path')

async function web (ctx) {
  const [opts = {}] = ctx.args
  const { webOptions } = require('../web/options')
  const options = webOptions(opts) // bad flags are refused before the daemon is reached
  const home = ctx.io.paths().home
  // the daemon is started if it is not running, as for any command; the server then opens its
  // own connections while pages are open
  await ctx.connect()
  if (opts.daemon) return webAsApp(ctx, opts, options, home)
  ctx.client.close()
  ctx.client = null
  const { newToken } = require('../web/security')
  const { runWeb } = require('../web')
  return runWeb({ options, token: newToken(), home, stdout: ctx.io.stdout, stderr: ctx.io.stderr, connect: () => ctx.io.connect({ home, autoStart: false }) })
}

async function webAsApp (ctx, opts, options, home) {
  const { writeFileAtomic } = require('../../shared/state/atomic-write')
  const { readPrivateFile } = require('../../shared/safe-fs')
  const { newToken } = require('../web/security')
  const { APP_NAME } = require('../web/options')
  const { displayHost } = require('../web/server')
  const { XpmError } = require('../../shared/errors')
  if (options.port === 0) throw new XpmError('XPM_ERR_BAD_ARGUMENT', '--daemon needs a fixed --port (the URL must stay the same when the app restarts)')
  const tokenFile = path.join(home, 'web.token')
  let token = await readPrivateFile(tokenFile).then((t) => t.trim(), () => '')
  if (token.length < 16) {
    token = newToken()
    await writeFileAtomic(tokenFile, token + '\n', { mode: 0o600 })
  }
  const name = opts.name || APP_NAME
  const scriptArgs = ['--port', String(options.port), '--host', options.host, '--token-file', tokenFile, '--home', home]
  if (options.readOnly) scriptArgs.push('--read-only')
  for (const h of options.allowedHosts) scriptArgs.push('--allowed-host', h)
  if (options.publicUrl) scriptArgs.push('--public-url', options.publicUrl)
  const { resolveStart } = require('../../shared/config')
  const resolved = await resolveStart({ target: path.join(__dirname, '..', 'web', 'serve.js'), flags: { name, waitReady: true }, scriptArgs, cwd: home, env: ctx.io.env })
  const { longRequest } = require('../long-request')
  // a script, as `xpm start serve.js`: a dashboard already running is left as it is
  const [result] = await longRequest(ctx.client, 'start', { specs: resolved.specs, fromScript: [name] })
  if (result.failures?.[0]?.code === 'XPM_ERR_APP_EXISTS') result.failures = []
  if (result.failures?.length) {
    throw new XpmError('XPM_ERR_START_FAILED', `${name} did not come online: ${result.failures[0].message}; see \`xpm logs ${name}\``)
  }
  if (result.action === 'already running') ctx.io.say(`[xpm] ${name} is already running (\`xpm delete ${name}\` first to change its options)\n`)
  else ctx.io.say(`[xpm] started ${name}: the dashboard is an app of xpm (\`xpm logs ${name}\`, \`xpm stop ${name}\`)\n`)
  // to the terminal of whoever typed this, as a foreground run does; the app's own log never has it
  const address = options.publicUrl || `http://${displayHost(options.host)}:${options.port}`
  ctx.io.stdout.write(`[xpm] web dashboard${options.readOnly ? ' (read-only)' : ''}: ${address}/#token=${token}\n`)
}

module.exports = { web }
