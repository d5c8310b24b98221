'use strict'

// `list`/`jlist`/`prettylist` across hosts: one table with a host column first, or one JSON list
// whose processes each carry their `host`; a host that failed is named on stderr and, in JSON, is
// one entry { host, error: { code, message } } of the list.
const { runOne, summarize, wireError } = require('./each-host')

async function table (fleet, ctx, options) {
  const { io } = ctx
  const { renderList, renderMiniList, sortRows, parseSort, LIST_FIELDS } = require('../render-list')
  if (options.sort) parseSort(options.sort)
  const answers = await fleet.all('list', { fields: LIST_FIELDS })
  const rows = []
  for (const a of answers) if (a.result) rows.push(...sortRows(a.result, options.sort).map((p) => ({ host: a.label, ...p })))
  const reached = answers.filter((a) => a.result)
  if (rows.length || reached.length) io.stdout.write(options.miniList || io.output.mini ? renderMiniList(rows) : renderList(rows, io.tableOptions()))
  return summarize(answers.map((a) => ({ label: a.label, code: a.error ? 1 : 0, error: failure(fleet, a) })), io)
}

// The host's own error when its connection dropped during the request.
const failure = (fleet, a) => (a.error ? fleet.hosts.find((e) => e.label === a.label)?.error || a.error : null)

async function json (name, action, fleet, ctx, rest) {
  const { io } = ctx
  const results = await Promise.all(fleet.hosts.map((e) => runOne(e, action, ctx, rest)))
  const all = []
  for (const r of results) {
    if (r.error || r.code !== 0) {
      all.push({ host: r.label, error: r.error ? wireError(r.error) : { code: 'XPM_ERR_INTERNAL', message: r.err.join('\n') } })
      continue
    }
    let list
    try { list = JSON.parse(r.out.join('\n')) } catch (err) { list = [] }
    for (const p of Array.isArray(list) ? list : []) all.push({ host: r.label, ...p })
  }
  if (name === 'jlist') io.stdout.write(JSON.stringify(all) + '\n')
  else io.printJson(all)
  return summarize(results, io)
}

module.exports = { table, json }
