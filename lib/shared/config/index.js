'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { XpmError } = require('../errors')
const { isEcosystemFile, loadEcosystem } = require('./load-ecosystem')
const { normalizeApp, appLabel, nameOf, defaultName } = require('./normalize')
const { whichSync } = require('./script')
const { parseFlags, checkDuplicates, throwProblems, checkAppObject } = require('./validate')
const { validateSpec, checkSpec } = require('./validate-spec')
const { suggest } = require('./suggest')
const { checkDependencies } = require('./dependencies')

// The entry the CLI uses: turns `xpm start <target> [flags] [-- args]` into normalized specs.
// Ecosystem files are evaluated here, in the CLI; the daemon only ever receives the specs.

const SCRIPT_EXTENSION = /\.(c|m)?[jt]sx?$|\.(py|sh|rb|pl|php|coffee|ls)$/i

// program: a bare word is a program on PATH when there is one (the CLI found no app of that name).
// partial: apps of a file whose script is missing come back as `missing` (errors) beside the
// specs of the others, as PM2's start starts the others (the caller reports them).
async function resolveStart ({ target, flags = {}, scriptArgs = [], cwd = process.cwd(), env = process.env, only, envName, program = false, partial = false } = {}) {
  only = only ?? flags.only
  envName = envName ?? flags.env
  // flags are checked whatever the target is, so a bad value never goes unnoticed
  const overrides = parseFlags(flags, { cwd })
  const file = path.resolve(cwd, target)

  if (isEcosystemFile(target)) {
    const { specs, notices, missing } = await fromEcosystem(file, { env, envName, only, overrides, scriptArgs, partial })
    return { kind: 'ecosystem', file, specs, notices, missing }
  }
  rejectFileOnlyOptions(target, { only, envName })
  // `xpm start npm --name web -- start`: a program on PATH, given arguments or a name, as PM2 runs it
  const commandLine = !isFile(file) && (isCommandLine(target, cwd, env) ||
    ((program || scriptArgs.length > 0 || flags.name !== undefined) && !/[/\\\s]/.test(target) && whichSync(target, env.PATH) !== null))
  if (commandLine || isFile(file) || /[/\\]/.test(target) || SCRIPT_EXTENSION.test(target)) {
    const collected = []
    const spec = normalizeApp({ script: commandLine ? target : file }, { baseDir: cwd, env, overrides, scriptArgs, notices: collected })
    return { kind: 'script', specs: [spec], notices: formatNotices(collected) }
  }
  // not a file: the name or id of an app the daemon already knows
  return { kind: 'name', name: target }
}

// stop | restart | reload | delete. withSpecs: false only derives the names (so an app whose
// script was removed can still be stopped and deleted).
async function resolveTargets ({ target, cwd = process.cwd(), env = process.env, only, envName, withSpecs = true } = {}) {
  if (!isEcosystemFile(target)) {
    rejectFileOnlyOptions(target, { only, envName })
    return { kind: 'name', name: target }
  }
  const file = path.resolve(cwd, target)
  if (!withSpecs) {
    const { apps } = await selectApps(file, only)
    return { kind: 'ecosystem', file, names: apps.map(({ raw, label }) => nameOf(raw, { envName, label })) }
  }
  const { specs, notices } = await fromEcosystem(file, { env, envName, only })
  return { kind: 'ecosystem', file, names: specs.map((s) => s.name), specs, notices }
}

async function fromEcosystem (file, { env, envName, only, overrides = {}, scriptArgs = [], partial = false }) {
  const { dir, apps, names, notices: fileNotices, deployEnvs } = await selectApps(file, only)
  const deployEnv = envName && Object.hasOwn(deployEnvs, envName) ? deployEnvs[envName] : null
  if (envName && !deployEnv && !apps.some(({ raw }) => Object.hasOwn(raw, `env_${envName}`))) {
    const known = [...new Set(apps.flatMap(({ raw }) => Object.keys(raw).filter(isEnvSection).map((k) => k.slice(4))))]
    const near = suggest(envName, known)
    throw new XpmError('XPM_ERR_BAD_ARGUMENT',
      `--env "${envName}": no app in ${file} has "env_${envName}"${near ? ` — did you mean "${near}"?` : ''} (known: ${known.join(', ') || 'none'})`)
  }
  const problems = []
  const specs = []
  const notices = [...fileNotices]
  const missingNames = []
  for (const { raw, label } of apps) {
    try {
      specs.push(normalizeApp(raw, { baseDir: dir, env, envName, deployEnv, overrides, scriptArgs, label, notices }))
    } catch (err) {
      if (!(err instanceof XpmError)) throw err
      problems.push(err)
      if (err.code === 'XPM_ERR_SCRIPT_NOT_FOUND') missingNames.push(nameOf(raw, { envName, label }))
    }
  }
  // every problem of the file at once, one per line, duplicate names included
  try {
    checkDuplicates(specs, file)
  } catch (err) {
    problems.push(err)
  }
  const missing = partial && specs.length && missingNames.length === problems.length &&
    !specs.some((s) => (s.dependsOn || []).some((d) => missingNames.includes(d)))
    ? problems.splice(0)
    : []
  throwProblems(problems, { source: file })
  checkDependencies(specs, { file, known: names })
  return { specs, notices: formatNotices(notices), missing }
}

// A target with spaces whose first word is a file or a program on PATH is a command line
// (`xpm start "npm run start"`), as PM2 runs it.
function isCommandLine (target, cwd, env) {
  const [first] = target.trim().split(/\s+/)
  if (!/\s/.test(target.trim()) || !first) return false
  return isFile(path.resolve(cwd, first)) || (!/[/\\]/.test(first) && whichSync(first, env.PATH) !== null)
}

// Notices ({ app, key, message }) → one line per key and message, naming every app it concerns.
function formatNotices (notices) {
  const byText = new Map()
  for (const { app, key, message } of notices) {
    const id = `${key}\0${message}`
    if (!byText.has(id)) byText.set(id, { key, message, apps: [] })
    if (app !== null && app !== undefined && !byText.get(id).apps.includes(app)) byText.get(id).apps.push(app)
  }
  return [...byText.values()].map(({ key, message, apps }) => {
    const where = apps.length === 0 ? '' : apps.length === 1 ? ` in app "${apps[0]}"` : ` in apps ${apps.map((a) => `"${a}"`).join(', ')}`
    return `\`${key}\`${where}: ${message}`
  })
}

function isFile (file) {
  try { return fs.statSync(file).isFile() } catch { return false }
}

const isEnvSection = (key) => key.startsWith('env_') && key !== 'env_file'

async function selectApps (file, only) {
  const { dir, apps: raws, notices, deployEnvs } = await loadEcosystem(file)
  const apps = raws.map((raw, i) => {
    const label = appLabel(raw, i)
    checkAppObject(raw, `app ${label} in ${file}`)
    return { raw, label }
  })
  const names = apps.map((a) => a.label)
  if (!only) return { dir, apps, names, notices, deployEnvs }
  const wanted = (Array.isArray(only) ? only : String(only).split(',')).map((s) => s.trim()).filter(Boolean)
  for (const name of wanted) {
    if (!names.includes(name)) {
      const near = suggest(name, names)
      throw new XpmError('XPM_ERR_BAD_ARGUMENT',
        `--only "${name}": no such app in ${file}${near ? ` — did you mean "${near}"?` : ''} (apps: ${names.join(', ')})`)
    }
  }
  return { dir, apps: apps.filter((a) => wanted.includes(a.label)), names, notices, deployEnvs }
}

function rejectFileOnlyOptions (target, { only, envName }) {
  for (const [flag, value] of [['--only', only], ['--env', envName]]) {
    if (value !== undefined && value !== null) {
      throw new XpmError('XPM_ERR_BAD_ARGUMENT', `${flag} needs an ecosystem file, got "${target}"`)
    }
  }
}

module.exports = {
  resolveStart,
  resolveTargets,
  normalizeApp,
  validateSpec,
  checkSpec,
  isEcosystemFile,
  loadEcosystem,
  defaultName
}
