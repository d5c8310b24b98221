'use strict'

const { printJson } = require('../run')

async function list (ctx) {
  const [opts] = ctx.args
  const client = await ctx.connect()
  const processes = await client.request('list')
  if (opts.json) return printJson(processes)
  process.stdout.write(require('../render-list').renderList(processes))
}

async function jlist (ctx) {
  const client = await ctx.connect()
  process.stdout.write(JSON.stringify(await client.request('list')) + '\n')
}

async function show (ctx) {
  const [target, opts] = ctx.args
  const client = await ctx.connect()
  const details = await client.request('show', { target })
  if (opts.json) return printJson(details)
  process.stdout.write(require('../render-show').renderShow(details))
}

module.exports = { list, jlist, show }
