'use strict'

// The server's small HTTP parts (server.js): a JSON body read within a bound, the target of a
// query string, and a server-sent event stream as the sink hub.js and log-stream.js write to.

const { XpmError } = require('../../shared/errors')
const { parseTarget } = require('./actions')

const MAX_BODY = 16 * 1024

function targetParam (url) {
  const id = url.searchParams.get('id')
  if (id !== null && /^\d+$/.test(id)) return Number(id)
  return parseTarget(url.searchParams.get('target') ?? undefined)
}

async function readJson (req) {
  let size = 0
  const chunks = []
  for await (const chunk of req) {
    size += chunk.length
    if (size > MAX_BODY) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `The request body is larger than ${MAX_BODY} bytes`)
    chunks.push(chunk)
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch (err) {
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', `The request body is not JSON: ${err.message}`, { cause: err })
  }
}

// → { closed, send(event, data, json?) → bytes waiting, buffered(), onDrain(fn), end() };
// open: the set of open streams' answers (for GET /api/status's bytes waiting)
function eventStream (req, res, headers, open) {
  res.writeHead(200, headers({ 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' }))
  res.write('retry: 3000\n\n') // after the daemon went away, the page asks again in 3 s
  req.socket.setNoDelay(true)
  let closed = false
  open.add(res)
  res.on('close', () => {
    closed = true
    open.delete(res)
  })
  return {
    get closed () { return closed },
    send: (event, data, json = JSON.stringify(data)) => {
      if (!closed) res.write(`event: ${event}\ndata: ${json}\n\n`)
      return res.writableLength
    },
    buffered: () => res.writableLength,
    onDrain: (fn) => res.once('drain', fn),
    end: () => res.end()
  }
}

module.exports = { targetParam, readJson, eventStream, MAX_BODY }
