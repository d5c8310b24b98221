'use strict'

const { XpmError } = require('../../shared/errors')

async function monit (ctx, input) {
  if (!ctx.io.stdout.isTTY) throw new XpmError('XPM_ERR_BAD_ARGUMENT', '`xpm monit` needs a terminal; use `xpm jlist` for machine-readable output')
  const { optionsOf } = require('../fleet/options')
  const options = optionsOf(ctx, input)
  if (options.host?.length || options.hosts) return monitAcrossHosts(ctx, options)
  const client = await ctx.connect()
  const { runMonit } = require('../monit')
  return runMonit({ client, stdout: ctx.io.stdout, stdin: ctx.io.stdin, signals: ctx.io.signals })
}

// `--host`/`--hosts`: one ssh connection per host (lib/cli/fleet), seen by monit as one daemon
// (monit/fleet-client.js), a host that drops tried again. Refused only when no host can be reached.
async function monitAcrossHosts (ctx, options) {
  const { resolveHosts, openFleet } = require('../fleet')
  const hosts = await resolveHosts({ host: options.host, hosts: options.hosts }, { cwd: ctx.io.cwd(), home: ctx.io.paths().home })
  const fleet = await openFleet(hosts, { env: ctx.io.env })
  if (fleet.hosts.every((e) => !e.client)) {
    fleet.close()
    throw new XpmError('XPM_ERR_HOST_UNREACHABLE', `no host could be reached: ${fleet.hosts.map((e) => e.error.message).join('; ')}`)
  }
  const { FleetClient } = require('../monit/fleet-client')
  const { MonitModel } = require('../monit/model')
  const { connectHost } = require('../fleet/connect')
  const client = new FleetClient(fleet, { reconnect: (entry) => connectHost(entry.host, { env: ctx.io.env }) })
  const model = new MonitModel()
  model.fleet = { labels: client.labels(), get unreachable () { return client.unreachable } }
  const { runMonit } = require('../monit')
  try {
    return await runMonit({ client, model, stdout: ctx.io.stdout, stdin: ctx.io.stdin })
  } finally {
    client.close()
  }
}

module.exports = { monit }
