'use strict'

// `xpm serve` (PM2's `pm2 serve`), run as an app of xpm: serves a folder over HTTP. Configured as
// PM2's server is, by PM2_SERVE_PATH, PM2_SERVE_PORT, PM2_SERVE_HOST, PM2_SERVE_SPA,
// PM2_SERVE_HOMEPAGE and PM2_SERVE_BASIC_AUTH(_USERNAME, _PASSWORD), so an ecosystem file with
// `script: 'serve'` works unchanged. What it answers, as PM2's does: a file; a folder's
// index.html; with SPA, a missing path's file name at the top of the folder, else the homepage;
// else the folder's 404.html (status 404), or a plain 404 when that cannot be read. Nothing
// outside the folder is served, also not through a symbolic link; the folder itself may be one.
const fs = require('node:fs')
const http = require('node:http')
const path = require('node:path')
const crypto = require('node:crypto')
const { pipeline } = require('node:stream')

const TYPES = {
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  mjs: 'text/javascript',
  json: 'application/json',
  txt: 'text/plain',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  ico: 'image/x-icon',
  woff: 'font/woff',
  woff2: 'font/woff2',
  wasm: 'application/wasm',
  map: 'application/json',
  pdf: 'application/pdf',
  xml: 'application/xml'
}

function optionsFrom (env = process.env) {
  const auth = env.PM2_SERVE_BASIC_AUTH === 'true' ? { username: env.PM2_SERVE_BASIC_AUTH_USERNAME ?? '', password: env.PM2_SERVE_BASIC_AUTH_PASSWORD ?? '' } : null
  return {
    root: path.resolve(env.PM2_SERVE_PATH || '.'),
    port: Number(env.PM2_SERVE_PORT || 8080),
    host: env.PM2_SERVE_HOST || '0.0.0.0',
    spa: env.PM2_SERVE_SPA === 'true',
    homepage: env.PM2_SERVE_HOMEPAGE || '/index.html',
    auth
  }
}

// The real path of a file inside base (the folder's real path), or null (missing, or outside).
async function inside (base, urlPath) {
  const wanted = path.resolve(base, '.' + path.posix.normalize('/' + urlPath))
  try {
    const real = await fs.promises.realpath(wanted)
    const rel = path.relative(base, real)
    if (rel.startsWith('..') || path.isAbsolute(rel)) return null
    const st = await fs.promises.stat(real)
    if (st.isDirectory()) return inside(base, path.posix.join(urlPath, 'index.html'))
    return st.isFile() ? real : null
  } catch {
    return null
  }
}

// The folder is often a link switched by each deploy (/var/www/current → a release): it is
// resolved at each request, so the new release is served at once and the links inside are
// judged against the release they live in.
async function realRoot (root) {
  try { return await fs.promises.realpath(root) } catch { return null }
}

async function answer (options, req, res) {
  if (options.auth && !authorized(options.auth, req.headers.authorization)) {
    res.writeHead(401, { 'Content-Type': 'text/html', 'WWW-Authenticate': 'Basic realm="Authentication service"' })
    return res.end('401 Unauthorized')
  }
  let urlPath
  try { urlPath = decodeURIComponent(new URL(req.url, 'http://localhost').pathname) } catch { urlPath = null }
  if (urlPath === null || urlPath.includes('\0')) {
    res.writeHead(400)
    return res.end('400 Bad Request')
  }
  const base = await realRoot(options.root)
  let file = base && await inside(base, urlPath)
  if (!file && base && options.spa) file = (await inside(base, '/' + path.posix.basename(urlPath))) || (await inside(base, options.homepage))
  const found = file && await open(file)
  if (found) return send(req, res, 200, TYPES[path.extname(file).slice(1).toLowerCase()] || 'application/octet-stream', found)
  // a 404.html that cannot be read (a folder, no rights, a dangling link) gives the plain answer
  const notFound = base && await inside(base, '/404.html')
  const page = notFound && await open(notFound)
  if (page) return send(req, res, 404, 'text/html', page)
  res.writeHead(404, { 'Content-Type': 'text/html' })
  res.end('404 Not Found')
}

// Opened before the status is sent, so a file that cannot be read never gets a 200 or an
// unhandled stream error (which would end the server for every later request).
async function open (file) {
  try { return await fs.promises.open(file, 'r') } catch { return null }
}

function send (req, res, status, type, handle) {
  res.writeHead(status, { 'Content-Type': type })
  if (req.method === 'HEAD') {
    handle.close().catch(() => {})
    return res.end()
  }
  // pipeline: a client that goes away mid-file closes the file too (pipe() would leave it open)
  pipeline(handle.createReadStream(), res, () => {})
}

function authorized ({ username, password }, header) {
  const [scheme, encoded] = String(header || '').split(' ')
  if (scheme !== 'Basic' || !encoded) return false
  const given = Buffer.from(Buffer.from(encoded, 'base64').toString('utf8'))
  const expected = Buffer.from(`${username}:${password}`)
  return given.length === expected.length && crypto.timingSafeEqual(given, expected)
}

function serve (options = optionsFrom()) {
  const server = http.createServer((req, res) => {
    answer(options, req, res).catch(() => { if (!res.headersSent) res.writeHead(500); res.end() })
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => resolve(server))
  })
}

// The app that serves a folder (`xpm serve`, and PM2's `static` entries of an ecosystem file):
// { path, port, host, spa, homepage, basic_auth: { username, password }, name } → a raw app.
function staticApp ({ path: folder = '.', port = 8080, host, spa, homepage, basic_auth: auth, name } = {}) {
  const env = { PM2_SERVE_PATH: String(folder), PM2_SERVE_PORT: String(port) }
  if (host) env.PM2_SERVE_HOST = String(host)
  if (spa) env.PM2_SERVE_SPA = 'true'
  if (homepage) env.PM2_SERVE_HOMEPAGE = String(homepage)
  if (auth?.username !== undefined && auth?.password !== undefined) {
    Object.assign(env, { PM2_SERVE_BASIC_AUTH: 'true', PM2_SERVE_BASIC_AUTH_USERNAME: String(auth.username), PM2_SERVE_BASIC_AUTH_PASSWORD: String(auth.password) })
  }
  return { name: name || `static-page-server-${port}`, script: __filename, env }
}

if (require.main === module) {
  const options = optionsFrom()
  serve(options).then((server) => {
    const { port } = server.address()
    console.log(`serving ${options.root} on ${options.host}:${port}${options.spa ? ' (single-page app)' : ''}${options.auth ? ' (basic auth)' : ''}`)
  }, (err) => {
    console.error(`cannot serve ${options.root} on ${options.host}:${options.port}: ${err.message}`)
    process.exit(1)
  })
}

module.exports = { serve, optionsFrom, staticApp, SCRIPT: __filename }
