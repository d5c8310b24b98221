'use strict'

// bench/apps/hello.js listening with SO_REUSEPORT itself (Node >= 22.12): the floor of the
// reuse_port measure, started as plain `node` processes side by side on one port.
const http = require('node:http')

const body = String(process.pid)
http.createServer((req, res) => {
  res.setHeader('content-type', 'text/plain')
  res.end(body)
}).listen({ port: Number(process.env.PORT), reusePort: true })
