'use strict'

// The web dashboard's security decisions, pure: who may talk to it (token), from which name
// (Host, against DNS rebinding), and whether a state-changing request comes from the page itself
// (Origin, Sec-Fetch-Site, CSRF header). The server applies them to every request.

const crypto = require('node:crypto')
const net = require('node:net')

// Cookies are not kept apart by port: two dashboards on 127.0.0.1 (say, of two XPM_HOMEs) would
// overwrite each other's token under one name, so the name carries the port.
function cookieName (port) {
  return `xpm_web_${port}`
}
const CSRF_HEADER = 'x-xpm-csrf'

function newToken () {
  return crypto.randomBytes(24).toString('base64url')
}

// The CSRF value the page sends back in a header: derived from the token, so it survives a
// restart of a daemon-managed server that keeps its token, and a cross-site page cannot read it.
function csrfFor (token) {
  return crypto.createHmac('sha256', token).update('xpm-web-csrf').digest('base64url')
}

function sameSecret (given, expected) {
  if (typeof given !== 'string' || given.length === 0) return false
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && crypto.timingSafeEqual(a, b)
}

function cookieValue (header, name) {
  if (typeof header !== 'string') return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return null
}

function sessionCookie (token, name) {
  return `${name}=${token}; HttpOnly; SameSite=Strict; Path=/`
}

// Where the token came from: the cookie the page keeps, `Authorization: Bearer` (scripts) or the
// `token` query parameter of the printed URL. null when none matches.
function tokenSource ({ headers, query }, token, cookie) {
  if (sameSecret(cookieValue(headers.cookie, cookie), token)) return 'cookie'
  const auth = headers.authorization
  if (typeof auth === 'string' && auth.startsWith('Bearer ') && sameSecret(auth.slice(7).trim(), token)) return 'header'
  if (sameSecret(query.get('token'), token)) return 'query'
  return null
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]']

function isLoopback (host) {
  return host === 'localhost' || host === '::1' || (net.isIPv4(host) && host.startsWith('127.'))
}

function isWildcard (host) {
  return host === '0.0.0.0' || host === '::' || host === ''
}

// Host header → whether it names the bound address. A DNS-rebinding page reaches us under its
// own name, so only the names we are bound under are accepted: the loopback names for a loopback
// bind, the --host given, and IP literals (which no rebinding can produce) for a wildcard bind.
// The port is not compared: an SSH tunnel (ssh -L 8080:127.0.0.1:9615) brings the page under
// another port of the same name, and a rebinding page cannot choose the name.
function hostAllowed (header, { host, allowedHosts = [] }) {
  if (typeof header !== 'string' || header.length > 300) return false
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d+))?$/.exec(header.trim())
  if (!m) return false
  const name = m[1].toLowerCase()
  const bare = name.startsWith('[') ? name.slice(1, -1) : name
  if (allowedHosts.map((h) => h.toLowerCase()).includes(bare)) return true
  // 127.x.y.z as an address only: 127.0.0.1.attacker.example is a name an attacker controls
  if (isLoopback(host) && (LOOPBACK_NAMES.includes(name) || (net.isIPv4(bare) && bare.startsWith('127.')))) return true
  if (bare === String(host).toLowerCase()) return true
  if (isWildcard(host) && (net.isIP(bare) !== 0 || bare === 'localhost')) return true
  return false
}

// A POST that changes something must come from the page: the CSRF header (a cross-site form
// cannot set headers, a cross-site fetch cannot read the value), the Origin (when the browser
// sends one) equal to ours, and no cross-site Sec-Fetch-Site. Returns null or the reason.
function crossSiteReason (headers, token) {
  const site = headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `Sec-Fetch-Site is ${site}`
  const origin = headers.origin
  if (origin !== undefined && origin !== `http://${headers.host}`) return `Origin ${origin} is not this dashboard (http://${headers.host})`
  if (!sameSecret(headers[CSRF_HEADER], csrfFor(token))) return `the ${CSRF_HEADER} header is missing or wrong`
  return null
}

// Every answer carries these: no inline script or style, nothing from elsewhere, no framing,
// the token never leaves in a Referer, nothing cached.
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store'
}

module.exports = {
  cookieName,
  CSRF_HEADER,
  SECURITY_HEADERS,
  newToken,
  csrfFor,
  sameSecret,
  cookieValue,
  sessionCookie,
  tokenSource,
  hostAllowed,
  crossSiteReason,
  isLoopback,
  isWildcard
}
