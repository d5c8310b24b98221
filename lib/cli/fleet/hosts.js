'use strict'

// Which hosts a fleet command reaches: `--host user@host[:port]` (repeatable), or `--hosts <name>`:
// the hosts of the ecosystem file's `deploy.<name>` section (read as `xpm deploy` reads it, with
// its user, port, key and ssh_options), else the group <name> of XPM_HOME/hosts.json (the same
// keys as a deploy target, without repo, ref or path). Each host is a deploy host config
// (lib/cli/deploy/config.js), so lib/cli/deploy/ssh.js builds its ssh command line.
const fs = require('node:fs')
const path = require('node:path')
const { XpmError } = require('../../shared/errors')

const MAX_HOSTS = 64
// What a host's `env` may pass to its bridge: where its daemon lives and how xpm is found there
// (not the rest: it would be on the remote command line, seen by `ps`).
const BRIDGE_ENV = ['XPM_HOME', 'PM2_HOME', 'PATH']

const hostsError = (message, details) => new XpmError('XPM_ERR_HOSTS_CONFIG', message, { details })

// `deploy@web1`, `web1:2222`, `deploy@[::1]:2222` → a host config. Nothing may start with `-`
// (ssh would read it as an option).
function parseHostSpec (spec) {
  const m = /^(?:([^@\s:/-][^@\s:/]*)@)?(\[[0-9A-Fa-f:.]+\]|[^@\s:[\]/-][^@\s:[\]/]*)(?::(\d{1,5}))?$/.exec(String(spec))
  if (!m || (m[3] !== undefined && (Number(m[3]) < 1 || Number(m[3]) > 65535))) {
    throw hostsError(`--host ${JSON.stringify(spec)}: expected user@host[:port]`, { spec })
  }
  const host = m[2].replace(/^\[(.*)\]$/, '$1')
  return { host, user: m[1] || '', port: m[3] || '', key: '', ssh_options: [], env: {}, name: '', label: spec }
}

// opts: { host: [specs], hosts: name }; cwd: where the ecosystem file is looked for; home: XPM_HOME.
async function resolveHosts (opts, { cwd = process.cwd(), home, file } = {}) {
  const specs = opts.host ? [].concat(opts.host) : []
  const hosts = specs.map(parseHostSpec)
  if (opts.hosts) hosts.push(...await hostsOfGroup(opts.hosts, { cwd, home, file }))
  if (!hosts.length) throw hostsError('no hosts: give --host user@host[:port] or --hosts <deploy environment>')
  if (hosts.length > MAX_HOSTS) throw hostsError(`${hosts.length} hosts: a fleet command reaches at most ${MAX_HOSTS}`, { count: hosts.length })
  const seen = new Map()
  for (const h of hosts) seen.set(h.label, (seen.get(h.label) || 0) + 1)
  const dups = [...seen].filter(([, n]) => n > 1).map(([l]) => l)
  if (dups.length) throw hostsError(`the same host twice: ${dups.join(', ')}`, { hosts: dups })
  return hosts.map((h) => ({ ...h, bridgeEnv: bridgeEnv(h.env) }))
}

function bridgeEnv (env = {}) {
  const out = {}
  for (const k of BRIDGE_ENV) if (env[k] !== undefined) out[k] = String(env[k])
  return out
}

// A deploy environment of the ecosystem file here, else a group of XPM_HOME/hosts.json.
async function hostsOfGroup (name, { cwd, home, file }) {
  const { DEFAULT_FILES, readSection, resolveTarget } = require('../deploy/config')
  const found = file || DEFAULT_FILES.find((f) => fs.existsSync(path.join(cwd, f)))
  let deployed = null
  if (found) {
    const { deploy } = await readSection(found, cwd)
    if (deploy && Object.hasOwn(deploy, name)) deployed = { deploy, file: found }
  }
  if (deployed) return resolveTarget(deployed.deploy, name, { file: deployed.file, cwd, need: ['host'] }).hosts
  const hostsFile = path.join(home, 'hosts.json')
  let groups = null
  try {
    groups = JSON.parse(fs.readFileSync(hostsFile, 'utf8'))
  } catch (err) {
    if (err.code !== 'ENOENT') throw hostsError(`${hostsFile}: ${err.message}`, { file: hostsFile })
  }
  if (groups && typeof groups === 'object' && Object.hasOwn(groups, name)) {
    return resolveTarget(groups, name, { file: hostsFile, cwd, need: ['host'] }).hosts
  }
  const where = [found ? `deploy section of ${found}` : 'no ecosystem file here', groups ? hostsFile : `no ${hostsFile}`]
  throw hostsError(`--hosts ${name}: no such group (${where.join('; ')})`, { name })
}

module.exports = { parseHostSpec, resolveHosts, MAX_HOSTS, BRIDGE_ENV }
