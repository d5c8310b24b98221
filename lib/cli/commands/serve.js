'use strict'

// `xpm serve [path] [port]` (PM2's `pm2 serve`): starts an app that serves a folder over HTTP
// (lib/shared/serve/static-server.js), named static-page-server-<port> unless --name says otherwise.
const path = require('node:path')
const { XpmError } = require('../../shared/errors')

async function serve (ctx, { path: folder, port: portArg, options: opts }) {
  const { io } = ctx
  const port = Number(portArg ?? opts.port ?? io.env.PM2_SERVE_PORT ?? 8080)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected a port from 0 to 65535, got "${portArg ?? opts.port}"`)
  if ((opts.basicAuthUsername === undefined) !== (opts.basicAuthPassword === undefined)) {
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', '--basic-auth-username and --basic-auth-password go together')
  }
  const { staticApp } = require('../../shared/serve/static-server')
  const raw = staticApp({
    path: path.resolve(io.cwd(), folder ?? io.env.PM2_SERVE_PATH ?? '.'),
    port,
    host: opts.host,
    spa: opts.spa,
    homepage: opts.homepage,
    basic_auth: opts.basicAuthUsername === undefined ? undefined : { username: opts.basicAuthUsername, password: opts.basicAuthPassword },
    name: opts.name
  })
  const { normalizeApp } = require('../../shared/config')
  const spec = normalizeApp(raw, { baseDir: io.cwd(), env: io.env })
  const client = await ctx.connect()
  const { longRequest } = require('../long-request')
  const [result] = await longRequest(client, 'start', { specs: [spec], fromScript: [spec.name] })
  if (result.failures?.length) {
    throw new XpmError(result.failures[0].code === 'XPM_ERR_APP_EXISTS' ? 'XPM_ERR_APP_EXISTS' : 'XPM_ERR_START_FAILED',
      `${spec.name} did not come online: ${result.failures[0].message}; see \`xpm logs ${spec.name}\``, { details: result.failures })
  }
  io.say(`[xpm] serving ${raw.env.PM2_SERVE_PATH} on port ${port} (app ${spec.name})\n`)
  await io.showList(client)
}

module.exports = { serve }
