'use strict'

// The fleet API: one connection per host over ssh (connect.js), opened at once (at most 64
// hosts), reused for every request of a command or a page. For contributors (docs/fleet.md):
//
//   const { resolveHosts, openFleet } = require('lib/cli/fleet')
//   const hosts = await resolveHosts({ host: ['deploy@web1'], hosts: 'production' }, { cwd, home })
//   const fleet = await openFleet(hosts, { env, connectTimeout })
//   fleet.hosts      [{ label, host, client, error }]: client is a lib/cli/client.js Client
//                    (request(method, params, { timeout }), 'event' for pushed events, 'close'),
//                    null when the host could not be reached; error then says why (XpmError
//                    with code XPM_ERR_HOST_UNREACHABLE, XPM_ERR_REMOTE_XPM_MISSING or
//                    XPM_ERR_PROTOCOL_VERSION, details.host). A host whose connection drops later
//                    gets client null and error set, and the fleet emits 'down' (entry).
//   fleet.request(label, method, params, opts)   one host's request (rejects for a host down)
//   fleet.all(method, params, opts)   every reachable host at once → [{ label, result | error }]
//   fleet.close()    ends every ssh connection
//
// Opening never rejects for a host: partial results are results.
const { EventEmitter } = require('node:events')
const { XpmError } = require('../../shared/errors')
const { connectHost } = require('./connect')
const { resolveHosts, parseHostSpec, MAX_HOSTS } = require('./hosts')

async function openFleet (hosts, { env = process.env, connectTimeout } = {}) {
  if (hosts.length > MAX_HOSTS) throw new XpmError('XPM_ERR_HOSTS_CONFIG', `${hosts.length} hosts: a fleet reaches at most ${MAX_HOSTS}`)
  const fleet = new EventEmitter()
  fleet.hosts = hosts.map((host) => ({ label: host.label, host, client: null, error: null }))
  await Promise.all(fleet.hosts.map(async (entry) => {
    try {
      entry.client = await connectHost(entry.host, { env, timeout: connectTimeout })
    } catch (err) {
      entry.error = err
      return
    }
    entry.client.once('close', () => {
      if (fleet.closing) return
      entry.client = null
      entry.error = new XpmError('XPM_ERR_HOST_UNREACHABLE', `${entry.label}: the connection closed`, { details: { host: entry.label } })
      fleet.emit('down', entry)
    })
  }))
  const entryOf = (label) => {
    const entry = fleet.hosts.find((e) => e.label === label)
    if (!entry) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `no host ${JSON.stringify(label)} in this fleet`)
    return entry
  }
  fleet.request = async (label, method, params, opts) => {
    const entry = entryOf(label)
    if (!entry.client) throw entry.error
    return entry.client.request(method, params, opts)
  }
  fleet.all = (method, params, opts) => Promise.all(fleet.hosts.map((e) => fleet.request(e.label, method, params, opts)
    .then((result) => ({ label: e.label, result }), (error) => ({ label: e.label, error }))))
  fleet.close = () => {
    fleet.closing = true
    for (const e of fleet.hosts) e.client?.close()
  }
  return fleet
}

module.exports = { openFleet, resolveHosts, parseHostSpec, connectHost, MAX_HOSTS }
