'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const sec = require('../../lib/cli/web/security')
const { webOptions } = require('../../lib/cli/web/options')
const { parseAction } = require('../../lib/cli/web/actions')

const TOKEN = 'x'.repeat(32)

test('the token is accepted only as a Bearer header: never from a cookie or the query', () => {
  assert.equal(sec.bearerOk({ authorization: `Bearer ${TOKEN}` }, TOKEN), true)
  assert.equal(sec.bearerOk({ authorization: `bearer ${TOKEN}` }, TOKEN), true)
  assert.equal(sec.bearerOk({ authorization: 'Bearer ' + 'y'.repeat(32) }, TOKEN), false)
  assert.equal(sec.bearerOk({ authorization: 'Bearer ' }, TOKEN), false)
  assert.equal(sec.bearerOk({ cookie: `xpm_web_9615=${TOKEN}` }, TOKEN), false) // cookies reach every port of the host
  assert.equal(sec.bearerOk({ authorization: `Basic ${TOKEN}` }, TOKEN), false)
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
})

test('behind a TLS proxy: the stated scheme counts under an --allowed-host name only, or --public-url\'s origin', () => {
  const csrf = sec.csrfFor(TOKEN)
  const proxied = { host: 'dash.example', 'x-xpm-csrf': csrf, origin: 'https://dash.example', 'x-forwarded-proto': 'https', 'sec-fetch-site': 'same-origin' }
  assert.match(sec.crossSiteReason(proxied, TOKEN), /Origin https:\/\/dash\.example is not this dashboard \(http:\/\/dash\.example; behind a proxy, see --public-url\)/)
  assert.equal(sec.crossSiteReason(proxied, TOKEN, { allowedHosts: ['Dash.Example'] }), null)
  assert.equal(sec.crossSiteReason({ ...proxied, host: 'dash.example:443' }, TOKEN, { allowedHosts: ['dash.example'] }), null)
  assert.equal(sec.crossSiteReason({ ...proxied, 'x-forwarded-proto': 'https, http' }, TOKEN, { allowedHosts: ['dash.example'] }), null)
  // on a direct connection the header is whatever the client says: not trusted under a loopback Host
  assert.match(sec.crossSiteReason({ ...proxied, host: '127.0.0.1:9615', origin: 'https://127.0.0.1:9615' }, TOKEN, { allowedHosts: ['dash.example'] }), /Origin/)
  assert.match(sec.crossSiteReason({ ...proxied, 'x-forwarded-proto': 'gopher' }, TOKEN, { allowedHosts: ['dash.example'] }), /Origin/)
  assert.match(sec.crossSiteReason({ ...proxied, origin: 'https://attacker.example' }, TOKEN, { allowedHosts: ['dash.example'] }), /Origin/)
  // a proxy that sends its upstream's Host (nginx's default) and no X-Forwarded-Proto: --public-url
  const upstream = { ...proxied, host: '127.0.0.1:9615', 'x-forwarded-proto': undefined }
  assert.match(sec.crossSiteReason(upstream, TOKEN), /Origin/)
  assert.equal(sec.crossSiteReason(upstream, TOKEN, { publicUrl: 'https://dash.example' }), null)
  assert.deepEqual(sec.originsOf({ host: 'dash.example', 'x-forwarded-proto': 'https' }, { allowedHosts: ['dash.example'], publicUrl: 'https://dash.example' }), ['http://dash.example', 'https://dash.example'])
  assert.notEqual(csrf, TOKEN)
})

test('an earlier version\'s cookie is expired; the CSP allows no inline script', () => {
  const name = sec.legacyCookieName(9615)
  assert.equal(sec.hasCookie(`a=b; ${name}=${TOKEN}`, name), true)
  assert.equal(sec.hasCookie('xpm_web_96150=x', name), false)
  assert.match(sec.expiredCookie(name), /^xpm_web_9615=; Max-Age=0;/)
  assert.match(sec.SECURITY_HEADERS['content-security-policy'], /default-src 'none'; script-src 'self';/)
  assert.doesNotMatch(sec.SECURITY_HEADERS['content-security-policy'], /unsafe-inline|unsafe-eval/)
})

test('bad options and actions are refused with what was expected', () => {
  assert.deepEqual(webOptions({}), { port: 9615, host: '127.0.0.1', readOnly: false, allowedHosts: [], publicUrl: null })
  assert.deepEqual(webOptions({ publicUrl: 'https://Dash.Example/' }), { port: 9615, host: '127.0.0.1', readOnly: false, allowedHosts: ['dash.example'], publicUrl: 'https://dash.example' })
  assert.equal(webOptions({ publicUrl: 'https://dash.example:8443' }).publicUrl, 'https://dash.example:8443')
  for (const bad of ['dash.example', 'ftp://dash.example', 'https://dash.example/xpm/', 'https://u:p@dash.example', 'https://dash.example/?a=1']) {
    assert.throws(() => webOptions({ publicUrl: bad }), { code: 'XPM_ERR_BAD_ARGUMENT', message: /--public-url/ }, bad)
  }
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
