'use strict'

// The table and `show` ask the daemon for the fields they print only; --json and jlist get all.
async function list (ctx, { options: opts = {} }) {
  const { sortRows, parseSort } = require('../render-list')
  if (opts.sort) parseSort(opts.sort) // a bad field is refused before the daemon is reached
  const client = await ctx.connect()
  if (opts.json) return ctx.io.printJson(sortRows(await client.request('list'), opts.sort))
  const { renderList, renderMiniList, LIST_FIELDS } = require('../render-list')
  const rows = sortRows(await client.request('list', { fields: LIST_FIELDS }), opts.sort)
  ctx.io.stdout.write(opts.miniList || ctx.io.output.mini ? renderMiniList(rows) : renderList(rows, ctx.io.tableOptions()))
}

// xpm's shape on one line; --pm2: PM2's shape (lib/cli/render-pm2.js).
async function jlist (ctx, { options: opts = {} }) {
  const client = await ctx.connect()
  ctx.io.stdout.write(JSON.stringify(await rows(client, opts)) + '\n')
}

// `prettylist`: the same, indented.
async function prettylist (ctx, { options: opts = {} }) {
  const client = await ctx.connect()
  ctx.io.printJson(await rows(client, opts))
}

async function rows (client, opts) {
  if (!opts.pm2) return client.request('list')
  const { PM2_FIELDS, renderPm2List } = require('../render-pm2')
  return renderPm2List(await client.request('show', { target: 'all', fields: PM2_FIELDS }))
}

async function show (ctx, { targets, options: opts }) {
  const client = await ctx.connect()
  const { expandTargets, wire } = require('../targets')
  const target = wire(await expandTargets(client, targets))
  if (opts.json) return ctx.io.printJson(await client.request('show', { target }))
  const { renderShow, SHOW_FIELDS } = require('../render-show')
  ctx.io.stdout.write(renderShow(await client.request('show', { target, fields: SHOW_FIELDS }), ctx.io.tableOptions()))
}

// `xpm env <id>`: the environment the process gets, one `NAME: value` line each, as PM2 prints it.
async function env (ctx, { id: target, options: opts }) {
  const client = await ctx.connect()
  const { expandTargets, wire } = require('../targets')
  const shown = await client.request('show', { target: wire(await expandTargets(client, [target])), fields: ['id', 'name', 'instance', 'env'] })
  if (opts.json) return ctx.io.printJson(shown.length === 1 ? shown[0].env : shown.map((p) => ({ id: p.id, name: p.name, env: p.env })))
  for (const p of shown) {
    if (shown.length > 1) ctx.io.stdout.write(`# ${p.name} (id ${p.id})\n`)
    for (const [k, v] of Object.entries(p.env || {})) ctx.io.stdout.write(`${k}: ${v}\n`)
  }
}

// `xpm id <name>`: the process ids of an app as a JSON array ([] when there is no such app, as PM2).
async function id (ctx, { name }) {
  const client = await ctx.connect()
  const rowsOf = await client.request('list', { fields: ['id', 'name'] })
  ctx.io.stdout.write(JSON.stringify(rowsOf.filter((p) => p.name === name).map((p) => p.id)) + '\n')
}

// `xpm pid [target]`: the pids of the running processes, one per line (stopped ones have none,
// so `kill -USR2 $(xpm pid api)` never signals pid 0).
async function pid (ctx, { target }) {
  const client = await ctx.connect()
  let found
  if (target === undefined) found = await client.request('list', { fields: ['pid'] })
  else {
    const { expandTargets, wire } = require('../targets')
    found = await client.request('show', { target: wire(await expandTargets(client, [target])), fields: ['pid'] })
  }
  for (const p of found) if (p.pid) ctx.io.stdout.write(`${p.pid}\n`)
}

module.exports = { list, jlist, prettylist, show, env, id, pid }
