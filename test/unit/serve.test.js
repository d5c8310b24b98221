'use strict'

// xpm serve's static server (PM2's pm2 serve), in this process on a free port.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const http = require('node:http')
const { serve, optionsFrom, staticApp } = require('../../lib/shared/serve/static-server')
const { tempDir } = require('../helpers/tmp')

function get (port, pathname, headers = {}) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: pathname, headers }, (res) => {
      let body = ''
      res.on('data', (d) => { body += d }).on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body }))
    }).on('error', reject)
  })
}

function site (t) {
  const root = tempDir('xpm-serve-')
  fs.writeFileSync(path.join(root, 'index.html'), '<p>home</p>')
  fs.writeFileSync(path.join(root, 'other.html'), 'other')
  fs.mkdirSync(path.join(root, 'docs'))
  fs.writeFileSync(path.join(root, 'docs', 'index.html'), 'docs home')
  const outside = tempDir('xpm-serve-outside-')
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret')
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'))
  t.after(() => { fs.rmSync(root, { recursive: true, force: true }); fs.rmSync(outside, { recursive: true, force: true }) })
  return root
}

async function start (t, env) {
  const server = await serve(optionsFrom({ PM2_SERVE_PORT: '0', PM2_SERVE_HOST: '127.0.0.1', ...env }))
  t.after(() => server.close())
  return server.address().port
}

test('serve: files, a folder\'s index.html, 404.html or 404, nothing outside the folder (.. or a link)', async (t) => {
  const root = site(t)
  const port = await start(t, { PM2_SERVE_PATH: root })
  assert.deepEqual(await get(port, '/'), { status: 200, type: 'text/html', body: '<p>home</p>' })
  assert.equal((await get(port, '/docs/')).body, 'docs home')
  assert.deepEqual([(await get(port, '/nope.html')).status, (await get(port, '/nope.html')).body], [404, '404 Not Found'])
  fs.writeFileSync(path.join(root, '404.html'), 'custom missing')
  assert.deepEqual([(await get(port, '/nope.html')).status, (await get(port, '/nope.html')).body], [404, 'custom missing'])
  for (const p of ['/../../../etc/passwd', '/..%2f..%2fetc%2fpasswd', '/link.txt']) assert.equal((await get(port, p)).status, 404, p)
})

test('serve --spa: a missing path gets the file of that name at the top, else the homepage; basic auth', async (t) => {
  const root = site(t)
  const port = await start(t, { PM2_SERVE_PATH: root, PM2_SERVE_SPA: 'true', PM2_SERVE_BASIC_AUTH: 'true', PM2_SERVE_BASIC_AUTH_USERNAME: 'user', PM2_SERVE_BASIC_AUTH_PASSWORD: 'pass' })
  assert.equal((await get(port, '/')).status, 401)
  const auth = { authorization: 'Basic ' + Buffer.from('user:pass').toString('base64') }
  assert.equal((await get(port, '/a/b/other.html', auth)).body, 'other')
  assert.equal((await get(port, '/a/b/c', auth)).body, '<p>home</p>')
  assert.equal((await get(port, '/', { authorization: 'Basic ' + Buffer.from('user:wrong').toString('base64') })).status, 401)
})

test('staticApp: PM2\'s static entries and `xpm serve` options as an app', () => {
  const app = staticApp({ path: 'dist', port: 8081, spa: true, basic_auth: { username: 'u', password: 'p' } })
  assert.equal(app.name, 'static-page-server-8081')
  assert.deepEqual(app.env, { PM2_SERVE_PATH: 'dist', PM2_SERVE_PORT: '8081', PM2_SERVE_SPA: 'true', PM2_SERVE_BASIC_AUTH: 'true', PM2_SERVE_BASIC_AUTH_USERNAME: 'u', PM2_SERVE_BASIC_AUTH_PASSWORD: 'p' })
  assert.equal(staticApp({ name: 'frontend' }).name, 'frontend')
})

test('serve a folder that is a symbolic link (/var/www/current → a release): its files, the release it points to now, and still nothing outside it', async (t) => {
  const base = tempDir('xpm-serve-releases-')
  for (const name of ['r1', 'r2']) {
    fs.mkdirSync(path.join(base, name, 'css'), { recursive: true })
    fs.writeFileSync(path.join(base, name, 'index.html'), `release ${name}`)
    fs.writeFileSync(path.join(base, name, 'css', 'site.css'), `css ${name}`)
  }
  fs.writeFileSync(path.join(base, 'secret.txt'), 'secret')
  fs.symlinkSync(path.join(base, 'secret.txt'), path.join(base, 'r1', 'escape.txt'))
  fs.symlinkSync(path.join(base, 'r2', 'index.html'), path.join(base, 'r1', 'sibling.html'))
  fs.symlinkSync(path.join(base, 'r1', 'css', 'site.css'), path.join(base, 'r1', 'inner.css'))
  const current = path.join(base, 'current')
  fs.symlinkSync(path.join(base, 'r1'), current)
  const port = await start(t, { PM2_SERVE_PATH: current })
  assert.deepEqual(await get(port, '/'), { status: 200, type: 'text/html', body: 'release r1' })
  assert.equal((await get(port, '/css/site.css')).body, 'css r1')
  assert.equal((await get(port, '/inner.css')).body, 'css r1', 'a link that stays inside the release')
  for (const p of ['/escape.txt', '/sibling.html', '/../secret.txt', '/..%2fsecret.txt', '/../r2/index.html']) assert.equal((await get(port, p)).status, 404, p)
  // a deploy switches the link atomically: the new release is served at once
  fs.symlinkSync(path.join(base, 'r2'), path.join(base, 'current.new'))
  fs.renameSync(path.join(base, 'current.new'), current)
  assert.equal((await get(port, '/css/site.css')).body, 'css r2')
  fs.rmSync(current)
  assert.deepEqual([(await get(port, '/')).status, (await get(port, '/')).body], [404, '404 Not Found'], 'the folder gone: a plain 404')
})

test('a 404.html that is a folder or a dangling link gives a plain 404, and the server answers on', async (t) => {
  const root = site(t)
  const port = await start(t, { PM2_SERVE_PATH: root })
  fs.mkdirSync(path.join(root, '404.html'))
  for (let i = 0; i < 2; i++) assert.deepEqual([(await get(port, '/nope')).status, (await get(port, '/nope')).body], [404, '404 Not Found'])
  fs.rmdirSync(path.join(root, '404.html'))
  fs.symlinkSync(path.join(root, 'gone.html'), path.join(root, '404.html'))
  for (let i = 0; i < 2; i++) assert.deepEqual([(await get(port, '/nope')).status, (await get(port, '/nope')).body], [404, '404 Not Found'])
  assert.equal((await get(port, '/other.html')).body, 'other')
})
