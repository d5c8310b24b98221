'use strict'

// A handler with a little of a real one's work: a turn of the event loop (setImmediate, where a
// real handler would await its database) and a JSON answer of about 1 KB built per request.
const http = require('node:http')

const items = Array.from({ length: 18 }, (_, i) => ({ id: i, name: `item ${i}`, price: 10 + i, tags: ['a', 'b'] }))
http.createServer((req, res) => {
  setImmediate(() => {
    const body = JSON.stringify({ pid: process.pid, at: Date.now(), path: req.url, items })
    res.setHeader('content-type', 'application/json')
    res.end(body)
  })
}).listen(Number(process.env.PORT || 0))
