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

// --public-url: the address the browser uses behind a reverse proxy (https://dash.example). → its
// origin, the value a browser's Origin header carries; the page's paths are absolute, so no path.
function parsePublicUrl (value) {
  if (value === undefined || value === null) return null
  let url = null
  try {
    url = new URL(String(value))
  } catch {}
  if (!url || !/^https?:$/.test(url.protocol) || url.username || url.password || url.search || url.hash || url.pathname !== '/') {
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected --public-url to be the address of the dashboard behind a proxy, as http(s)://name[:port] with no path, got "${value}"`)
  }
  return url.origin
}

// → { port, host, readOnly, allowedHosts, publicUrl }; the public URL's name is an allowed Host
function webOptions (opts = {}) {
  const publicUrl = parsePublicUrl(opts.publicUrl)
  const allowedHosts = parseAllowedHosts(opts.allowedHost)
  if (publicUrl) {
    const name = new URL(publicUrl).hostname.replace(/^\[(.*)\]$/, '$1')
    if (!allowedHosts.includes(name)) allowedHosts.push(name)
  }
  return {
    port: parsePort(opts.port ?? DEFAULT_PORT),
    host: parseHost(opts.host ?? DEFAULT_HOST),
    readOnly: opts.readOnly === true,
    allowedHosts,
    publicUrl
  }
}

module.exports = { webOptions, parsePort, parseHost, parsePublicUrl, DEFAULT_PORT, DEFAULT_HOST, APP_NAME }
