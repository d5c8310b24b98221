'use strict'

// What `pm2 web` answers on its port (9615) to a GET: the host's figures and the process list in
// PM2's shape (the same as `xpm jlist --pm2`, lib/cli/render-pm2.js), for scripts written for it.
// PM2 sends it to anyone with CORS open; xpm sends it behind the token and with no CORS, and
// with the environment masked (mask-env.js: `envMode`).

const os = require('node:os')

async function pm2Answer (client, { now = Date.now(), envMode = 'secrets' } = {}) {
  const { PM2_FIELDS, renderPm2List } = require('../render-pm2')
  const { maskEnv } = require('./mask-env')
  const rows = (await client.request('show', { target: 'all', fields: PM2_FIELDS })).map((p) => ({ ...p, env: maskEnv(p.env, envMode) }))
  return {
    system_info: { hostname: os.hostname(), uptime: os.uptime() },
    monit: {
      loadavg: os.loadavg(),
      total_mem: os.totalmem(),
      free_mem: os.freemem(),
      cpu: os.cpus(),
      interfaces: os.networkInterfaces()
    },
    processes: renderPm2List(rows, { now })
  }
}

module.exports = { pm2Answer }
