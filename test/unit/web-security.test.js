'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const sec = require('../../lib/cli/web/security')
const { webOptions } = require('../../lib/cli/web/options')
const { parseAction } = require('../../lib/cli/web/actions')

const TOKEN = 'x'.repeat(32)

test('the token is accepted from the cookie, a Bearer header or the query; nothing else', () => {
  const q = (s = '') => new URLSearchParams(s)
  const name = sec.cookieName(9615)
  assert.equal(sec.tokenSource({ headers: { cookie: `a=b; ${name}=${TOKEN}` }, query: q() }, TOKEN, name), 'cookie')
  assert.equal(sec.tokenSource({ headers: { cookie: `xpm_web_9616=${TOKEN}` }, query: q() }, TOKEN, name), null) // another dashboard's
  assert.equal(sec.tokenSource({ headers: { authorization: `Bearer ${TOKEN}` }, query: q() }, TOKEN), 'header')
  assert.equal(sec.tokenSource({ headers: {}, query: q(`token=${TOKEN}`) }, TOKEN), 'query')
  assert.equal(sec.tokenSource({ headers: { cookie: `${name}=` + 'y'.repeat(32) }, query: q('token=') }, TOKEN, name), null)
  assert.equal(sec.tokenSource({ headers: { authorization: 'Bearer ' }, query: q() }, TOKEN), null)
  assert.notEqual(sec.newToken(), sec.newToken())
  assert.ok(sec.newToken().length >= 32)
})

test('Host: loopback names for a loopback bind, the host given, IP literals for a wildcard; never another name (DNS rebinding)', () => {
  const loop = { host: '127.0.0.1', port: 9615 }
  for (const h of ['127.0.0.1:9615', 'localhost:9615', '[::1]:9615']) assert.ok(sec.hostAllowed(h, loop), h)
  assert.ok(sec.hostAllowed('127.0.0.1:8080', loop)) // an SSH tunnel from another local port
  for (const h of ['attacker.example:9615', 'attacker.example', '127.0.0.1.attacker.example:9615', undefined, '', 'a b:9615']) assert.ok(!sec.hostAllowed(h, loop), String(h))
  const any = { host: '0.0.0.0', port: 80 }
  assert.ok(sec.hostAllowed('10.1.2.3', any))
  assert.ok(sec.hostAllowed('10.1.2.3:80', any))
  assert.ok(!sec.hostAllowed('rebind.attacker.example', any))
  const named = { host: 'box.lan', port: 9615, allowedHosts: ['dash.example.com'] }
  assert.ok(sec.hostAllowed('box.lan:9615', named))
  assert.ok(sec.hostAllowed('dash.example.com:9615', named))
  assert.ok(!sec.hostAllowed('other.lan:9615', named))
})

test('a POST must carry the CSRF header, and a browser\'s Origin and Sec-Fetch-Site must be ours', () => {
  const csrf = sec.csrfFor(TOKEN)
  const host = '127.0.0.1:9615'
  assert.equal(sec.crossSiteReason({ host, 'x-xpm-csrf': csrf }, TOKEN), null) // a script: no Origin
  assert.equal(sec.crossSiteReason({ host, 'x-xpm-csrf': csrf, origin: 'http://127.0.0.1:9615', 'sec-fetch-site': 'same-origin' }, TOKEN), null)
  assert.match(sec.crossSiteReason({ host }, TOKEN), /x-xpm-csrf/)
  assert.match(sec.crossSiteReason({ host, 'x-xpm-csrf': 'guess' }, TOKEN), /x-xpm-csrf/)
  assert.match(sec.crossSiteReason({ host, 'x-xpm-csrf': csrf, origin: 'http://127.0.0.1:8080' }, TOKEN), /Origin/)
  assert.match(sec.crossSiteReason({ host, 'x-xpm-csrf': csrf, 'sec-fetch-site': 'same-site' }, TOKEN), /Sec-Fetch-Site/)
  assert.notEqual(csrf, TOKEN)
})

test('the cookie is HttpOnly and SameSite=Strict; the CSP allows no inline script', () => {
  assert.match(sec.sessionCookie(TOKEN, sec.cookieName(9615)), /^xpm_web_9615=x+; HttpOnly; SameSite=Strict; Path=\/$/)
  assert.match(sec.SECURITY_HEADERS['content-security-policy'], /default-src 'none'; script-src 'self';/)
  assert.doesNotMatch(sec.SECURITY_HEADERS['content-security-policy'], /unsafe-inline|unsafe-eval/)
})

test('bad options and actions are refused with what was expected', () => {
  assert.deepEqual(webOptions({}), { port: 9615, host: '127.0.0.1', readOnly: false, allowedHosts: [] })
  assert.throws(() => webOptions({ port: '70000' }), { code: 'XPM_ERR_BAD_ARGUMENT', message: /--port .* got "70000"/ })
  assert.throws(() => webOptions({ port: 'abc' }), { code: 'XPM_ERR_BAD_ARGUMENT' })
  assert.throws(() => webOptions({ host: 'http://x/' }), { code: 'XPM_ERR_BAD_ARGUMENT', message: /--host/ })
  assert.equal(webOptions({ host: '[::1]' }).host, '::1')
  assert.deepEqual(parseAction({ action: 'reload', target: 'api' }), { action: 'reload', target: 'api' })
  assert.deepEqual(parseAction({ action: 'stop', target: 3 }), { action: 'stop', target: 3 })
  assert.throws(() => parseAction({ action: 'delete', target: 'api' }), { code: 'XPM_ERR_BAD_ARGUMENT', message: /one of restart, reload, stop, start/ })
  assert.throws(() => parseAction({ action: 'stop', target: -1 }), { code: 'XPM_ERR_BAD_ARGUMENT' })
  assert.throws(() => parseAction(null), { code: 'XPM_ERR_BAD_ARGUMENT' })
})
