'use strict'

// The baseline: a bare node:cluster primary that forks N workers of an app and forks a new one
// when a worker dies. Usage: node raw-cluster.js <script> <instances>
const cluster = require('node:cluster')
const path = require('node:path')

const script = path.resolve(process.argv[2])
const instances = Number(process.argv[3] ?? 2)
let stopping = false

cluster.setupPrimary({ exec: script })
const fork = (i) => cluster.fork({ NODE_APP_INSTANCE: String(i) }).on('exit', () => {
  if (!stopping) fork(i)
})
for (let i = 0; i < instances; i++) fork(i)

const stop = () => {
  stopping = true
  for (const w of Object.values(cluster.workers)) w.process.kill('SIGTERM')
  cluster.disconnect(() => process.exit(0))
  setTimeout(() => process.exit(0), 3000).unref()
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
// With no worker the primary would exit at once; keep it up so its bare memory can be read.
setInterval(() => {}, 1 << 30)
