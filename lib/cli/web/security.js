'use strict'

// The web dashboard's security decisions, pure: who may talk to it (token), from which name
// (Host, against DNS rebinding), and whether a state-changing request comes from the page itself
// (Origin, Sec-Fetch-Site, CSRF header). The server applies them to every request.

const crypto = require('node:crypto')
const net = require('node:net')

// Earlier versions kept the token in a cookie named after the port; the page of this one expires it
// (cookies go to every port of a host, so a leftover one would still reach other local servers).
function legacyCookieName (port) {
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

function hasCookie (header, name) {
  return typeof header === 'string' && header.split(';').some((part) => part.trim().startsWith(`${name}=`))
}

function expiredCookie (name) {
  return `${name}=; Max-Age=0; HttpOnly; SameSite=Strict; Path=/`
}

// The token is accepted only as `Authorization: Bearer <token>`: a header is sent by the page's
// own scripts (which keep the token in sessionStorage, scoped to scheme, host and port) and by
// scripts, never by the browser on its own, so nothing another server receives carries it. Not
// from a cookie (the browser sends those to every port of the host) nor from the query (URLs end
// up in proxies' logs, the history and Referer headers).
function bearerOk (headers, token) {
  const auth = headers.authorization
  return typeof auth === 'string' && /^Bearer /i.test(auth) && sameSecret(auth.slice(7).trim(), token)
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]']

function isLoopback (host) {
  return host === 'localhost' || host === '::1' || (net.isIPv4(host) && host.startsWith('127.'))
}

function isWildcard (host) {
  return host === '0.0.0.0' || host === '::' || host === ''
}

// Host header → its name, lower case, without the port (an IPv6 literal without its brackets
// unless bare is false); null when it is not a Host header.
function hostName (header, bare = true) {
  if (typeof header !== 'string' || header.length > 300) return null
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d+))?$/.exec(header.trim())
  if (!m) return null
  const name = m[1].toLowerCase()
  return bare && name.startsWith('[') ? name.slice(1, -1) : name
}

// Host header → whether it names the bound address. A DNS-rebinding page reaches us under its
// own name, so only the names we are bound under are accepted: the loopback names for a loopback
// bind, the --host given, and IP literals (which no rebinding can produce) for a wildcard bind.
// The port is not compared: an SSH tunnel (ssh -L 8080:127.0.0.1:9615) brings the page under
// another port of the same name, and a rebinding page cannot choose the name.
function hostAllowed (header, { host, allowedHosts = [] }) {
  const name = hostName(header, false)
  if (name === null) return false
  const bare = hostName(header)
  if (allowedHosts.map((h) => h.toLowerCase()).includes(bare)) return true
  // 127.x.y.z as an address only: 127.0.0.1.attacker.example is a name an attacker controls
  if (isLoopback(host) && (LOOPBACK_NAMES.includes(name) || (net.isIPv4(bare) && bare.startsWith('127.')))) return true
  if (bare === String(host).toLowerCase()) return true
  if (isWildcard(host) && (net.isIP(bare) !== 0 || bare === 'localhost')) return true
  return false
}

function originOf (scheme, host) {
  try {
    return new URL(`${scheme}://${host}`).origin
  } catch {
    return null
  }
}

// The origins a browser may name for this dashboard: http:// and the Host it reached; the scheme a
// TLS proxy states (X-Forwarded-Proto), trusted only under a Host named by --allowed-host (a proxy
// was declared: on a direct connection the header is whatever the client says); --public-url's.
function originsOf (headers, { allowedHosts = [], publicUrl = null } = {}) {
  const list = []
  const direct = typeof headers.host === 'string' ? originOf('http', headers.host) : null
  if (direct) list.push(direct)
  const proto = String(headers['x-forwarded-proto'] ?? '').split(',')[0].trim().toLowerCase()
  const name = hostName(headers.host)
  if (direct && (proto === 'https' || proto === 'http') && name && allowedHosts.some((h) => h.toLowerCase() === name)) {
    const stated = originOf(proto, headers.host)
    if (!list.includes(stated)) list.push(stated)
  }
  if (publicUrl && !list.includes(publicUrl)) list.push(publicUrl)
  return list
}

// A POST that changes something must come from the page: the CSRF header (a cross-site form
// cannot set headers, a cross-site fetch cannot read the value), the Origin (when the browser
// sends one) equal to ours, and no cross-site Sec-Fetch-Site. Returns null or the reason.
function crossSiteReason (headers, token, options = {}) {
  const site = headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `Sec-Fetch-Site is ${site}`
  const origin = headers.origin
  if (origin !== undefined) {
    const ours = originsOf(headers, options)
    if (!ours.includes(origin)) return `Origin ${origin} is not this dashboard (${ours.join(' or ') || 'no Host'}${options.publicUrl || (options.allowedHosts || []).length ? '' : '; behind a proxy, see --public-url'})`
  }
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
  legacyCookieName,
  CSRF_HEADER,
  SECURITY_HEADERS,
  newToken,
  csrfFor,
  sameSecret,
  hasCookie,
  expiredCookie,
  bearerOk,
  hostAllowed,
  originsOf,
  crossSiteReason,
  isLoopback,
  isWildcard
}
