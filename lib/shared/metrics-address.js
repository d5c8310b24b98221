'use strict'

const { XpmError } = require('./errors')

const DEFAULT_HOST = '127.0.0.1'
const DEFAULT_PORT = 9209
const OFF = new Set(['', '0', 'off', 'false', 'no'])
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/

// Where the HTTP endpoint (/metrics, /livez, /readyz) listens, from XPM_METRICS or xpm-runtime's
// --metrics-address: "127.0.0.1:9209", "0.0.0.0:9209", "[::]:9209", "localhost:9209", a port alone
// ("9209", ":9209": 127.0.0.1) or true (the flag without a value: 127.0.0.1:9209). Without an
// address the endpoint is bound to 127.0.0.1, never to every interface. null: off (unset, "",
// "0", "off"). Pure; a malformed value is XPM_ERR_BAD_ARGUMENT naming where it came from.
// A bare value that starts with a digit is a port or an IPv4 address, never a host name: "9209x"
// is a mistyped port, not a host to look up (issue 23).
function parseMetricsAddress (value, { from = 'XPM_METRICS' } = {}) {
  if (value === undefined || value === null || value === false) return null
  if (value === true) return { host: DEFAULT_HOST, port: DEFAULT_PORT }
  const text = String(value).trim()
  if (OFF.has(text.toLowerCase())) return null
  const bad = (why) => new XpmError('XPM_ERR_BAD_ARGUMENT',
    `${from}="${text}": ${why}; expected a port or host:port, such as 9209, 127.0.0.1:9209, 0.0.0.0:9209 or [::]:9209`)
  let host = DEFAULT_HOST
  let port = text
  const bracket = /^\[([0-9a-fA-F:.%\w]+)\](?::(.*))?$/.exec(text)
  if (bracket) {
    host = bracket[1]
    port = bracket[2] ?? String(DEFAULT_PORT)
  } else if (text.includes(':')) {
    const colon = text.lastIndexOf(':')
    if (text.indexOf(':') !== colon) throw bad('an IPv6 address goes in brackets')
    host = text.slice(0, colon) || DEFAULT_HOST
    port = text.slice(colon + 1)
  } else if (/^\d/.test(text) && !/^\d+$/.test(text) && !IPV4.test(text)) {
    throw bad('not a port (digits only) nor an IPv4 address')
  } else if (!/^\d+$/.test(text)) {
    host = text
    port = String(DEFAULT_PORT)
  }
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) throw bad('the port must be a number from 1 to 65535')
  if (!/^[A-Za-z0-9.\-_:%]+$/.test(host) || host.length > 255) throw bad('not a host name or IP address')
  return { host, port: Number(port) }
}

// "127.0.0.1:9209", "[::1]:9209"
function formatAddress ({ host, port }) {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`
}

module.exports = { parseMetricsAddress, formatAddress, DEFAULT_HOST, DEFAULT_PORT }
