'use strict'

const { XpmError } = require('../../shared/errors')

// PM2's app settings: `set <app>:<key> <value>`, `multiset "<app>:<k> <v> …"`, `unset <app>[:<key>]`,
// `get [<app>[:<key>]]` (conf, config). Kept in XPM_HOME/module_conf.json (lib/shared/state/app-conf.js);
// an app gets its values as environment variables at every start, and `set` restarts a running
// app with them, as PM2 does. pm2-logrotate's keys are xpm's own log options: a notice.
const LOGROTATE = 'pm2-logrotate'
const LOGROTATE_TEXT = 'log rotation is built in; pm2-logrotate\'s settings are app options: log_max_size, log_max_files, log_interval, log_compress (docs/logs.md)'

function home (ctx) {
  const { ensureSafeHome } = require('../../shared/safe-fs')
  const h = ctx.io.paths().home
  ensureSafeHome(h, { create: true })
  return h
}

async function set (ctx, { key, value }) {
  if (key === undefined) return get(ctx, { options: {} })
  if (value === undefined) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `set ${key}: give a value (xpm set <app>:<key> <value>)`)
  return apply(ctx, [[key, value]])
}

// `multiset "api:a 1 api:b 2"`: pairs in one string, as PM2.
async function multiset (ctx, { pairs: serial }) {
  const words = (String(serial ?? '').match(/(?:[^\s"]+|"[^"]*")+/g) ?? []).map((w) => w.replace(/^"|"$/g, ''))
  if (!words.length || words.length % 2) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `multiset takes "<app>:<key> <value>" pairs in one argument, got "${serial ?? ''}"`)
  const pairs = []
  for (let i = 0; i < words.length; i += 2) pairs.push([words[i], words[i + 1]])
  return apply(ctx, pairs)
}

async function apply (ctx, pairs) {
  const store = require('../../shared/state/app-conf')
  const parsed = pairs.map(([k, v]) => {
    const s = store.splitKey(k)
    store.checkKey(s, k)
    return { ...s, value: v }
  })
  if (parsed.every((p) => p.app === LOGROTATE)) {
    ctx.io.say(`[xpm] set: ${LOGROTATE_TEXT}\n`)
    return 0
  }
  const h = home(ctx)
  let conf = await store.readAppConf(h)
  for (const p of parsed) conf = store.setValue(conf, p.app, p.key, p.value)
  await store.writeAppConf(h, conf)
  for (const p of parsed) ctx.io.say(`[xpm] ${p.key === null ? p.app : `${p.app}:${p.key}`} = ${JSON.stringify(String(p.value))}\n`)
  // a key without an app (`set key1 val1`) is kept, as PM2 keeps it, and given to no app
  for (const app of [...new Set(parsed.filter((p) => p.key !== null).map((p) => p.app))]) await restartWith(ctx, app, store.appEnv(conf, app))
}

// A running app takes its new values: restarted with them in its environment, as PM2 does.
async function restartWith (ctx, app, vars) {
  const client = await ctx.connect()
  const rows = await client.request('show', { target: app, fields: ['name', 'spec'] }).catch((err) => {
    if (err.code === 'XPM_ERR_APP_NOT_FOUND') return []
    throw err
  })
  if (!rows.length) {
    ctx.io.say(`[xpm] ${app} is not managed; it gets these values when it starts\n`)
    return
  }
  const spec = { ...rows[0].spec, env: { ...rows[0].spec.env, ...vars } }
  const { longRequest } = require('../long-request')
  const result = await longRequest(client, 'restart', { target: app, specs: [spec] })
  if (result.failures?.length) throw new XpmError('XPM_ERR_START_FAILED', `${app} did not come back online after the restart: ${result.failures[0].message}`)
  ctx.io.say(`[xpm] restarted ${app} with its settings\n`)
}

async function unset (ctx, { key }) {
  const store = require('../../shared/state/app-conf')
  const s = store.splitKey(key)
  store.checkKey(s, key)
  if (s.app === LOGROTATE) {
    ctx.io.say(`[xpm] unset: ${LOGROTATE_TEXT}\n`)
    return 0
  }
  const h = home(ctx)
  const conf = await store.readAppConf(h)
  await store.writeAppConf(h, store.unsetValue(conf, s.app, s.key))
  ctx.io.say(`[xpm] unset ${key} (the app keeps the values it runs with until its next restart)\n`)
}

async function get (ctx, { key }) {
  const store = require('../../shared/state/app-conf')
  const conf = await store.readAppConf(home(ctx))
  if (key === undefined || key === 'all') return ctx.io.printJson(conf)
  const s = store.splitKey(key)
  if (s.key === null) return typeof conf[s.app] === 'string' ? ctx.io.stdout.write(conf[s.app] + '\n') : ctx.io.printJson(conf[s.app] ?? {})
  const value = isObject(conf[s.app]) ? conf[s.app][s.key] : undefined
  if (value === undefined) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `no value for ${s.app}:${s.key} (xpm set ${s.app}:${s.key} <value>)`)
  ctx.io.stdout.write(value + '\n')
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

module.exports = { set, multiset, unset, get }
