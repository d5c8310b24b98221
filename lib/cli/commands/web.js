'use strict'

// `xpm web`: the browser dashboard (docs/web.md). In the foreground by default; `--daemon` starts
// it as an app of xpm (lib/cli/web/serve.js) with its token kept in XPM_HOME/web-<name>.token.
// `--hosts <group>` or `--host user@host[:port]` (a --host with a user part; without, it is the
// address to listen on, as it always was): one page for the daemons of several hosts over ssh
// (lib/cli/fleet/, docs/fleet.md).

const path = require('node:path')

async function web (ctx, { options: opts = {} }) {
  const { webOptions } = require('../web/options')
  const { XpmError } = require('../../shared/errors')
  const given = [].concat(opts.host ?? [])
  const reach = given.filter((h) => String(h).includes('@'))
  const listen = given.filter((h) => !String(h).includes('@'))
  if (listen.length > 1) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `--host ${listen.join(', ')}: one address to listen on (a host to reach is user@host[:port])`)
  const options = webOptions({ ...opts, host: listen[0] }) // bad flags are refused before the daemon is reached
  const home = ctx.io.paths().home
  if (reach.length || opts.hosts) {
    if (opts.daemon) throw new XpmError('XPM_ERR_BAD_ARGUMENT', '--daemon serves this machine\'s daemon only: run `xpm web --hosts` in the foreground (under tmux, or as a systemd service of yours)')
    return webAcrossHosts(ctx, { host: reach, hosts: opts.hosts }, options, home)
  }
  // the daemon is started if it is not running, as for any command; the server then opens its
  // own connections while pages are open
  await ctx.connect()
  if (opts.daemon) return webAsApp(ctx, opts, options, home)
  ctx.client.close()
  ctx.client = null
  const { newToken } = require('../web/security')
  const { runWeb } = require('../web')
  return runWeb({ options, token: newToken(), home, stdout: ctx.io.stdout, stderr: ctx.io.stderr, signals: ctx.io.signals, connect: () => ctx.io.connect({ home, autoStart: false }) })
}

// One lane per host: every daemon connection of the page to that host is a channel of one ssh
// connection (lib/cli/fleet/multiplex.js), opened when a page first needs it.
async function webAcrossHosts (ctx, which, options, home) {
  const { resolveHosts } = require('../fleet/hosts')
  const { openShared } = require('../fleet/multiplex')
  const hosts = await resolveHosts(which, { cwd: ctx.io.cwd(), home })
  const { shared, close } = openShared(hosts, { env: ctx.io.env })
  const lanes = shared.map((s) => ({ label: s.host.label, connect: () => s.connect() }))
  const { newToken } = require('../web/security')
  const { runWeb } = require('../web')
  try {
    return await runWeb({ options, token: newToken(), home, stdout: ctx.io.stdout, stderr: ctx.io.stderr, signals: ctx.io.signals, lanes })
  } finally {
    close()
  }
}

async function webAsApp (ctx, opts, options, home) {
  const { writeFileAtomic } = require('../../shared/state/atomic-write')
  const { readPrivateFile } = require('../../shared/safe-fs')
  const { newToken } = require('../web/security')
  const { APP_NAME } = require('../web/options')
  const { displayHost } = require('../web/server')
  const { XpmError } = require('../../shared/errors')
  if (options.port === 0) throw new XpmError('XPM_ERR_BAD_ARGUMENT', '--daemon needs a fixed --port (the URL must stay the same when the app restarts)')
  const name = opts.name || APP_NAME
  // One token per dashboard app (a read-only one must not hold the full one's), in a file named
  // by this version: a token of an earlier one (which wrote it into the app's 0644 out log and
  // into a cookie sent to every port) is never reused, its dashboard is replaced below.
  const tokenFile = webTokenFile(home, name)
  let token = await readPrivateFile(tokenFile).then((t) => t.trim(), () => '')
  const fresh = token.length < 16
  if (fresh) {
    token = newToken()
    await writeFileAtomic(tokenFile, token + '\n', { mode: 0o600 })
  }
  const scriptArgs = ['--port', String(options.port), '--host', options.host, '--token-file', tokenFile, '--home', home]
  if (options.readOnly) scriptArgs.push('--read-only')
  for (const h of options.allowedHosts) scriptArgs.push('--allowed-host', h)
  if (options.publicUrl) scriptArgs.push('--public-url', options.publicUrl)
  const { resolveStart } = require('../../shared/config')
  const resolved = await resolveStart({ target: path.join(__dirname, '..', 'web', 'serve.js'), flags: { name, waitReady: true }, scriptArgs, cwd: home, env: ctx.io.env })
  const { longRequest } = require('../long-request')
  // a script, as `xpm start serve.js`: a dashboard already running is left as it is
  const startIt = async () => {
    const [answer] = await longRequest(ctx.client, 'start', { specs: resolved.specs, fromScript: [name] })
    const exists = answer.failures?.[0]?.code === 'XPM_ERR_APP_EXISTS' || answer.action === 'already running'
    if (exists) answer.failures = []
    return { answer, exists }
  }
  let { answer: result, exists } = await startIt()
  if (exists && fresh) { // running with a token this command did not write: replaced, with the new one
    await longRequest(ctx.client, 'delete', { target: name })
    ;({ answer: result, exists } = await startIt())
  }
  if (result.failures?.length) {
    throw new XpmError('XPM_ERR_START_FAILED', `${name} did not come online: ${result.failures[0].message}; see \`xpm logs ${name}\``)
  }
  if (exists) ctx.io.say(`[xpm] ${name} is already running (\`xpm delete ${name}\` first to change its options)\n`)
  else ctx.io.say(`[xpm] started ${name}: the dashboard is an app of xpm (\`xpm logs ${name}\`, \`xpm stop ${name}\`)\n`)
  // to the terminal of whoever typed this, as a foreground run does; the app's own log never has it
  const address = options.publicUrl || `http://${displayHost(options.host)}:${options.port}`
  ctx.io.stdout.write(`[xpm] web dashboard${options.readOnly ? ' (read-only)' : ''}: ${address}/#token=${token}\n`)
}

function webTokenFile (home, name) {
  return path.join(home, `web-${String(name).replace(/[^A-Za-z0-9._-]/g, '_')}.token`)
}

module.exports = { web, webTokenFile }
