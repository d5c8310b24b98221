'use strict'

const { printJson } = require('../run')

// The table and `show` ask the daemon for the fields they print only; --json and jlist get all.
async function list (ctx) {
  const [opts] = ctx.args
  const client = await ctx.connect()
  if (opts.json) return printJson(await client.request('list'))
  const { renderList, LIST_FIELDS } = require('../render-list')
  process.stdout.write(renderList(await client.request('list', { fields: LIST_FIELDS })))
}

async function jlist (ctx) {
  const client = await ctx.connect()
  process.stdout.write(JSON.stringify(await client.request('list')) + '\n')
}

async function show (ctx) {
  const [target, opts] = ctx.args
  const client = await ctx.connect()
  if (opts.json) return printJson(await client.request('show', { target }))
  const { renderShow, SHOW_FIELDS } = require('../render-show')
  process.stdout.write(renderShow(await client.request('show', { target, fields: SHOW_FIELDS })))
}

module.exports = { list, jlist, show }
