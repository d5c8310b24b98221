'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { XpmError } = require('../../shared/errors')

// The `deploy` section of an ecosystem file, read as `pm2 deploy` reads it: the file named on the
// command line, or the first of PM2's default names in the folder; then one target
// (`deploy.<env>`) turned into one config per host.

// PM2 takes an argument for a file when its name contains one of these (Common.isConfigFile).
const FILE_MARKS = ['.json', '.yml', '.yaml', '.config.js', '.config.cjs', '.config.mjs']
// PM2's default search, in its order (ecosystem + each mark, then ecosystem.json5, package.json).
const DEFAULT_FILES = [...FILE_MARKS.map((m) => `ecosystem${m}`), 'ecosystem.json5', 'package.json']

// Keys read from a target. Hooks are shell commands; the rest configure ssh and git.
const KEYS = new Set(['user', 'host', 'port', 'ref', 'repo', 'path', 'ssh_options', 'key', 'fetch', 'forward-agent',
  'needs_tty', 'env', 'pre-setup', 'post-setup', 'pre-deploy-local', 'pre-deploy', 'post-deploy'])
// What a host object of `host: [...]` (xpm's extension) may set for itself (env: over the target's).
const HOST_KEYS = new Set(['host', 'name', 'user', 'port', 'path', 'key', 'ssh_options', 'env'])

const isFileArg = (arg) => typeof arg === 'string' && FILE_MARKS.some((m) => arg.includes(m))

function configError (message, details) {
  return new XpmError('XPM_ERR_DEPLOY_CONFIG', message, { details })
}

// The file to read: the one given, or the first default that exists in cwd.
function findFile (given, cwd) {
  if (given) return given
  const found = DEFAULT_FILES.find((name) => fs.existsSync(path.join(cwd, name)))
  if (!found) throw configError(`no deployment file here (${cwd}); give one, or name it one of: ${DEFAULT_FILES.join(', ')}`, { cwd })
  return found
}

// The whole exported object of the file (any form PM2 reads: .js, .cjs, .mjs, JSON/JSON5, YAML).
async function readSection (file, cwd) {
  const { readExported } = require('../../shared/config/load-ecosystem')
  const exported = await readExported(path.resolve(cwd, file))
  const deploy = exported && typeof exported === 'object' ? exported.deploy : undefined
  return { exported, deploy: deploy && typeof deploy === 'object' ? deploy : null }
}

// The apps a health check expects online: the names of the file's apps (PM2's default name:
// the script's base name without its extension).
function appNames (exported) {
  let apps = exported?.apps ?? exported?.pm2 ?? []
  if (!Array.isArray(apps)) apps = [apps]
  return apps.filter((a) => a && typeof a === 'object' && (a.name || a.script))
    .map((a) => String(a.name || path.basename(String(a.script)).replace(/\.[^.]*$/, '')))
}

const asList = (v) => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v])
const text = (v) => (v === undefined || v === null ? '' : String(v))

// One target → { env, hooks, hosts: [...] }. file: as given or found (the default post-deploy
// names it, as PM2's `pm2 startOrRestart <file> --env <env>`). need: the keys it must have (the
// fleet commands, lib/cli/fleet/hosts.js, need its hosts only).
function resolveTarget (deploy, envName, { file, cwd = process.cwd(), notice = () => {}, need = ['host', 'repo', 'path', 'ref'] } = {}) {
  if (!deploy) throw configError(`${file} has no deploy section`, { file })
  const raw = Object.hasOwn(deploy, envName) ? deploy[envName] : undefined
  if (!raw || typeof raw !== 'object') {
    throw configError(`${envName} environment is not defined in ${file} (deploy has: ${Object.keys(deploy).join(', ') || 'nothing'})`, { file, env: envName })
  }
  for (const key of Object.keys(raw)) if (!KEYS.has(key)) notice(`deploy.${envName}.${key}: not a key pm2 deploy reads; ignored`)
  const missing = need.filter((k) => raw[k] === undefined || raw[k] === '' || (Array.isArray(raw[k]) && raw[k].length === 0))
  if (missing.length) throw configError(`deploy.${envName} needs ${missing.join(', ')} (as pm2 deploy)`, { file, env: envName, missing })
  const env = raw.env && typeof raw.env === 'object' ? raw.env : {}
  const hooks = {
    'pre-setup': text(raw['pre-setup']),
    'post-setup': text(raw['post-setup']),
    'pre-deploy-local': text(raw['pre-deploy-local']),
    'pre-deploy': text(raw['pre-deploy']),
    'post-deploy': text(raw['post-deploy']) || `xpm startOrRestart ${file} --env ${envName}`
  }
  const base = {
    user: text(raw.user),
    port: text(raw.port),
    path: remotePath(text(raw.path), cwd, notice),
    key: text(raw.key),
    ssh_options: asList(raw.ssh_options).map(String),
    forwardAgent: Boolean(raw['forward-agent']),
    tty: Boolean(raw.needs_tty),
    env
  }
  const entries = asList(raw.host)
  const hosts = entries.map((entry, i) => hostConfig(entry, base, envName, i, cwd, notice))
  labelHosts(hosts)
  return { name: envName, repo: text(raw.repo), ref: text(raw.ref), fast: raw.fetch === 'fast', env, hooks, hosts }
}

function hostConfig (entry, base, envName, i, cwd, notice) {
  if (typeof entry === 'string' && entry) return { ...base, host: entry, name: '' }
  if (entry && typeof entry === 'object' && typeof entry.host === 'string') {
    for (const key of Object.keys(entry)) {
      if (!HOST_KEYS.has(key)) throw configError(`deploy.${envName}.host[${i}].${key}: a host may set ${[...HOST_KEYS].join(', ')}`)
    }
    return {
      ...base,
      host: entry.host,
      name: text(entry.name),
      user: entry.user !== undefined ? text(entry.user) : base.user,
      port: entry.port !== undefined ? text(entry.port) : base.port,
      path: entry.path !== undefined ? remotePath(text(entry.path), cwd, notice) : base.path,
      key: entry.key !== undefined ? text(entry.key) : base.key,
      ssh_options: entry.ssh_options !== undefined ? asList(entry.ssh_options).map(String) : base.ssh_options,
      env: entry.env && typeof entry.env === 'object' ? { ...base.env, ...entry.env } : base.env
    }
  }
  throw configError(`deploy.${envName}.host[${i}] must be a host name or { host, port, path, … }`)
}

// A host's label on every output line: its name, else its address, made unique (port, path).
function labelHosts (hosts) {
  const dup = (labels, i) => labels.filter((l) => l === labels[i]).length > 1
  let labels = hosts.map((h) => h.name || (h.user ? `${h.user}@${h.host}` : h.host))
  labels = labels.map((l, i) => (!hosts[i].name && dup(labels, i) && hosts[i].port ? `${l}:${hosts[i].port}` : l))
  labels = labels.map((l, i) => (!hosts[i].name && dup(labels, i) ? `${l}:${hosts[i].path}` : l))
  labels = labels.map((l, i) => (dup(labels, i) ? `${l}#${i + 1}` : l))
  hosts.forEach((h, i) => { h.label = labels[i] })
}

// PM2 resolves `path` on the machine that deploys (path.resolve): a relative one lands under the
// local folder. xpm does the same, but keeps `~/…` for the remote home.
function remotePath (p, cwd, notice) {
  if (p.startsWith('~/') || p === '~' || path.posix.isAbsolute(p)) return p.replace(/\/+$/, '') || '/'
  const resolved = path.posix.resolve(cwd, p)
  notice(`deploy path "${p}" is relative: resolved on this machine to ${resolved}, as pm2 deploy does`)
  return resolved
}

module.exports = { FILE_MARKS, DEFAULT_FILES, isFileArg, findFile, readSection, appNames, resolveTarget, configError }
