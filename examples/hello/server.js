'use strict'

// The bundled example app: a tiny HTTP server that says which worker answered.
const http = require('node:http')

const port = Number(process.env.PORT || 3000)
const greeting = process.env.GREETING || 'hello'

const server = http.createServer((req, res) => {
  res.setHeader('content-type', 'application/json')
  res.end(JSON.stringify({ message: `${greeting} from xpm`, pid: process.pid, instance: process.env.NODE_APP_INSTANCE }) + '\n')
})

server.listen(port, () => {
  console.log(`hello app listening on http://127.0.0.1:${port} (pid ${process.pid}, instance ${process.env.NODE_APP_INSTANCE})`)
})
