'use strict'

// A CPU-bound HTTP app: every request hashes a buffer a fixed number of times (~1 ms on a
// typical core), so throughput is limited by the workers, not by the load generator.
const http = require('node:http')
const crypto = require('node:crypto')

const ROUNDS = Number(process.env.CPU_ROUNDS || 1000)
const seed = Buffer.alloc(64, 7)

http.createServer((req, res) => {
  let digest = seed
  for (let i = 0; i < ROUNDS; i++) digest = crypto.createHash('sha256').update(digest).digest()
  res.setHeader('content-type', 'text/plain')
  res.end(digest.toString('hex', 0, 8))
}).listen(Number(process.env.PORT || 0))
