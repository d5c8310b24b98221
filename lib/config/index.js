'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { XpmError } = require('../errors')
const { isEcosystemFile, loadEcosystem } = require('./load-ecosystem')
const { normalizeApp, appLabel, defaultName } = require('./normalize')
const { parseFlags, checkDuplicates, throwProblems, checkAppObject } = require('./validate')
const { validateSpec, checkSpec } = require('./validate-spec')
const { suggest } = require('./suggest')

// The entry the CLI uses: turns `xpm start <target> [flags] [-- args]` into normalized specs.
// Ecosystem files are evaluated here, in the CLI; the daemon only ever receives the specs.

const SCRIPT_EXTENSION = /\.(c|m)?[jt]s$|\.(py|sh|rb|pl|php)$/i

async function resolveStart ({ target, flags = {}, scriptArgs = [], cwd = process.cwd(), env = process.env, only, envName } = {}) {
  only = only ?? flags.only
  envName = envName ?? flags.env
  // flags are checked whatever the target is, so a bad value never goes unnoticed
  const overrides = parseFlags(flags, { cwd })
  const file = path.resolve(cwd, target)

  if (isEcosystemFile(target)) {
    const { specs } = await fromEcosystem(file, { env, envName, only, overrides, scriptArgs })
    return { kind: 'ecosystem', file, specs }
  }
  rejectFileOnlyOptions(target, { only, envName })
  if (isFile(file) || /[/\\]/.test(target) || SCRIPT_EXTENSION.test(target)) {
    const spec = normalizeApp({ script: file }, { baseDir: cwd, env, overrides, scriptArgs })
    return { kind: 'script', specs: [spec] }
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
    return { kind: 'ecosystem', file, names: apps.map(({ raw }) => appLabel(raw)) }
  }
  const { specs } = await fromEcosystem(file, { env, envName, only })
  return { kind: 'ecosystem', file, names: specs.map((s) => s.name), specs }
}

async function fromEcosystem (file, { env, envName, only, overrides = {}, scriptArgs = [] }) {
  const { dir, apps } = await selectApps(file, only)
  if (envName && !apps.some(({ raw }) => Object.hasOwn(raw, `env_${envName}`))) {
    const known = [...new Set(apps.flatMap(({ raw }) => Object.keys(raw).filter(isEnvSection).map((k) => k.slice(4))))]
    const near = suggest(envName, known)
    throw new XpmError('XPM_ERR_BAD_ARGUMENT',
      `--env "${envName}": no app in ${file} has "env_${envName}"${near ? ` — did you mean "${near}"?` : ''} (known: ${known.join(', ') || 'none'})`)
  }
  const problems = []
  const specs = []
  for (const { raw, label } of apps) {
    try {
      specs.push(normalizeApp(raw, { baseDir: dir, env, envName, overrides, scriptArgs, label }))
    } catch (err) {
      if (!(err instanceof XpmError)) throw err
      problems.push(err)
    }
  }
  throwProblems(problems)
  checkDuplicates(specs, file)
  return { specs }
}

function isFile (file) {
  try { return fs.statSync(file).isFile() } catch { return false }
}

const isEnvSection = (key) => key.startsWith('env_') && key !== 'env_file'

async function selectApps (file, only) {
  const { dir, apps: raws } = await loadEcosystem(file)
  const apps = raws.map((raw, i) => {
    const label = appLabel(raw, i)
    checkAppObject(raw, `app ${label} in ${file}`)
    return { raw, label }
  })
  if (!only) return { dir, apps }
  const wanted = (Array.isArray(only) ? only : String(only).split(',')).map((s) => s.trim()).filter(Boolean)
  const names = apps.map((a) => a.label)
  for (const name of wanted) {
    if (!names.includes(name)) {
      const near = suggest(name, names)
      throw new XpmError('XPM_ERR_BAD_ARGUMENT',
        `--only "${name}": no such app in ${file}${near ? ` — did you mean "${near}"?` : ''} (apps: ${names.join(', ')})`)
    }
  }
  return { dir, apps: apps.filter((a) => wanted.includes(a.label)) }
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
