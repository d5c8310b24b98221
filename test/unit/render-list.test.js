'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { renderList } = require('../../lib/cli/render-list')

const proc = (over) => ({ id: 0, name: 'api', mode: 'cluster', pid: 4242, uptime: 3723000, restarts: 2, status: 'waiting restart', cpu: 12.5, memory: 52 * 1024 * 1024, ...over })

test('the process table stays within 80 columns, shortening long names first', () => {
  const rows = [proc({ name: 'a-very-long-application-name-that-goes-on-and-on' }), proc({ id: 1234, pid: 4194304, memory: 1.5 * 1024 ** 3 })]
  const out = renderList(rows, { columns: 80 })
  for (const line of out.trimEnd().split('\n')) assert.ok([...line].length <= 80, `${[...line].length}: ${line}`)
  assert.match(out, /a-very-lon…/)
  for (const text of ['id', 'name', 'mode', 'pid', 'uptime', 'status', 'cpu', 'mem', 'waiting restart', '13%', '52.0 MB', '1.5 GB', '1h', '4194304']) assert.ok(out.includes(text), text)
})

test('no processes says how to start one', () => {
  assert.match(renderList([]), /xpm start/)
})

test('1,000 rows: one line each between the rules, all the same width; colors only on a terminal', () => {
  const rows = Array.from({ length: 1000 }, (_, i) => proc({ id: i, name: `sleeper-${i}`, status: i % 2 ? 'online' : 'stopped', pid: i % 2 ? 10000 + i : 0 }))
  const out = renderList(rows, { columns: 120, tty: false })
  const lines = out.trimEnd().split('\n')
  assert.equal(lines.length, 1000 + 3)
  assert.ok(lines.every((l) => [...l].length === [...lines[0]].length))
  assert.ok(!out.includes('\u001b'))
  const colored = renderList(rows.slice(0, 2), { columns: 120, tty: true })
  assert.ok(colored.includes('\u001b[32monline\u001b[39m'))
  assert.ok(colored.includes('\u001b[90m│\u001b[39m'))
})
