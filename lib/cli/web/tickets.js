'use strict'

// One-time tickets for the page's event streams. EventSource cannot send an Authorization header,
// and the token must not travel in a URL (proxies and servers log request lines), so the page asks
// for a ticket with its bearer header and puts that in the stream's URL: it opens one stream, once,
// within TTL_MS, and is worth nothing after. Pure, on an injected clock.

const crypto = require('node:crypto')

const TTL_MS = 30000
const MAX_OUTSTANDING = 256 // a page asks for one per stream it opens; more waiting is a misuse

class Tickets {
  constructor ({ now = Date.now, ttl = TTL_MS } = {}) {
    this.now = now
    this.ttl = ttl
    this.open = new Map() // ticket → expiry
  }

  issue () {
    const t = this.now()
    for (const [ticket, expiry] of this.open) if (expiry <= t) this.open.delete(ticket)
    if (this.open.size >= MAX_OUTSTANDING) this.open.delete(this.open.keys().next().value) // the oldest
    const ticket = crypto.randomBytes(18).toString('base64url')
    this.open.set(ticket, t + this.ttl)
    return ticket
  }

  // true once for a ticket issued less than ttl ago; it is spent whatever the answer
  redeem (ticket) {
    if (typeof ticket !== 'string' || !this.open.has(ticket)) return false
    const expiry = this.open.get(ticket)
    this.open.delete(ticket)
    return expiry > this.now()
  }
}

module.exports = { Tickets, TTL_MS }
