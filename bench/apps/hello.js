'use strict'

// The smallest useful HTTP app: answers its pid so a client can tell workers apart.
const http = require('node:http')

const body = String(process.pid)
http.createServer((req, res) => {
  res.setHeader('content-type', 'text/plain')
  res.end(body)
}).listen(Number(process.env.PORT || 0))
