'use strict'

// `xpm web`'s options, checked the same way from the CLI and from lib/cli/web/serve.js (the script
// `xpm web --daemon` runs as an app). Pure.

const net = require('node:net')
const { XpmError } = require('../../shared/errors')

const DEFAULT_PORT = 9615 // pm2 web's port: scripts that read it find the same answer there
const DEFAULT_HOST = '127.0.0.1'
const APP_NAME = 'xpm-web'

function parsePort (value) {
  const n = typeof value === 'number' ? value : /^\d+$/.test(String(value)) ? Number(value) : NaN
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected --port to be a port number from 0 to 65535 (0: any free port), got "${value}"`)
  return n
}

function parseHost (value) {
  const host = String(value ?? '').trim()
  if (host === '' || host.length > 253 || /[\s/?#@]/.test(host)) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected --host to be an address or a host name to listen on (127.0.0.1, ::1, 0.0.0.0), got "${value}"`)
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
}

function parseAllowedHosts (list = []) {
  return [].concat(list).flatMap((h) => String(h).split(',')).map((h) => h.trim()).filter(Boolean).map((h) => {
    if (h.length > 253 || (/[\s/?#@:]/.test(h) && net.isIP(h) !== 6)) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected --allowed-host to be a host name, got "${h}"`)
    return h
  })
}

// → { port, host, readOnly, allowedHosts }
function webOptions (opts = {}) {
  return {
    port: parsePort(opts.port ?? DEFAULT_PORT),
    host: parseHost(opts.host ?? DEFAULT_HOST),
    readOnly: opts.readOnly === true,
    allowedHosts: parseAllowedHosts(opts.allowedHost)
  }
}

module.exports = { webOptions, parsePort, parseHost, DEFAULT_PORT, DEFAULT_HOST, APP_NAME }
