'use strict'

const fs = require('node:fs')

// The listening TCP sockets on `port`, from the kernel's tables (state 0A: LISTEN), as
// { inode, address } sorted by inode; address is the IPv4 dotted quad, or the table's hex for IPv6.
function listenersOn (port) {
  const hex = port.toString(16).toUpperCase().padStart(4, '0')
  const found = []
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = ''
    try { text = fs.readFileSync(table, 'utf8') } catch { continue }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/)
      if (fields[3] !== '0A' || !fields[1]?.endsWith(`:${hex}`)) continue
      const ip = fields[1].split(':')[0]
      const address = ip.length === 8 ? ip.match(/../g).reverse().map((b) => parseInt(b, 16)).join('.') : ip
      found.push({ inode: fields[9], address })
    }
  }
  return found.sort((a, b) => a.inode.localeCompare(b.inode))
}

module.exports = { listenersOn }
