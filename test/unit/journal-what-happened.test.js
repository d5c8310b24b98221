'use strict'

// What `xpm why` keeps of a crash's output, and how many events it can show (issue 23).
const test = require('node:test')
const assert = require('node:assert/strict')
const { whatHappened } = require('../../daemon/journal/what-happened')
const { createJournalMethods } = require('../../daemon/journal/methods')
const { MAX_ENTRIES } = require('../../daemon/journal/store')

const lines = (texts) => texts.map((line) => ({ stream: 'err', line }))
const text = (kept) => kept.map((l) => l.line)

test('a crash with a long stack: the Error line and the lines after it are kept, not 20 stack frames', () => {
  const out = lines([
    'listening on 3000',
    '/srv/app.js:12',
    '    throw new TypeError(\'db is not a function\')',
    '    ^',
    '',
    'TypeError: db is not a function',
    ...Array.from({ length: 30 }, (_, n) => `    at frame${n} (/srv/lib/${n}.js:1:1)`),
    '',
    'Node.js v20.20.2'
  ])
  const kept = text(whatHappened(out, 20))
  assert.equal(kept.length, 20)
  assert.equal(kept[0], 'TypeError: db is not a function')
  assert.equal(kept[1], '    at frame0 (/srv/lib/0.js:1:1)')
})

test('an error with its cause: kept from the first error line of the block', () => {
  const out = lines([
    'Error: request failed',
    '    at a (/srv/a.js:1:1)',
    '  [cause]: Error: connect ECONNREFUSED 10.0.0.7:5432',
    ...Array.from({ length: 25 }, (_, n) => `    at b${n} (/srv/b.js:1:1)`)
  ])
  assert.equal(text(whatHappened(out, 20))[0], 'Error: request failed')
})

test('the newest lines when they already say what happened, or when no error line is there; short output whole', () => {
  const tail = lines([...Array.from({ length: 30 }, (_, n) => `log ${n}`), 'Error: boom', '    at x (/srv/x.js:1:1)'])
  assert.deepEqual(text(whatHappened(tail, 20)), text(tail.slice(-20)))
  const plain = lines(Array.from({ length: 30 }, (_, n) => `log ${n}`))
  assert.deepEqual(text(whatHappened(plain, 20)), text(plain.slice(-20)))
  const short = lines(['a', 'Error: b'])
  assert.deepEqual(whatHappened(short, 20), short)
})

test(`xpm why --limit: 1 to ${MAX_ENTRIES}, what the journal keeps of each app (it used to take 1,000 and show 100)`, async () => {
  const asked = []
  const journal = { entries: async ({ limit }) => { asked.push(limit); return [] } }
  const app = { name: 'api', instances: [] }
  const inst = { id: 0, name: 'api', app }
  app.instances.push(inst)
  const supervisor = { resolve: () => [inst], apps: new Map([['api', app]]) }
  const { why } = createJournalMethods({ supervisor, journal, target: (p) => p.target })
  await why({ target: 'api', limit: MAX_ENTRIES })
  assert.deepEqual(asked, [MAX_ENTRIES])
  await assert.rejects(why({ target: 'api', limit: MAX_ENTRIES + 1 }), { code: 'XPM_ERR_BAD_ARGUMENT', message: new RegExp(`from 1 to ${MAX_ENTRIES} \\(the journal keeps the newest ${MAX_ENTRIES} events of each app\\), got 101`) })
  await assert.rejects(why({ target: 'api', limit: 1000 }), { code: 'XPM_ERR_BAD_ARGUMENT' })
})
