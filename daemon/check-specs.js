'use strict'

const fs = require('node:fs')
const { XpmError } = require('../lib/shared/errors')
const { validateSpec } = require('../lib/shared/config/validate-spec')
const { MAX_APPS } = require('../lib/shared/config/limits')
const { nodeHasReusePort } = require('../lib/agent/reuse-port')

// Specs arrive over the socket already normalized by lib/shared/config in the CLI; the daemon checks
// them again with the same rules (lib/shared/config/validate-spec.js), so a hand-written client can
// neither crash it nor leave an app stuck. Synchronous and cheap: the shape and every value.
function checkSpecs (specs) {
  if (!Array.isArray(specs) || specs.length === 0) {
    throw new XpmError('XPM_ERR_CONFIG_INVALID', 'Expected `specs` to be a non-empty array of app specs')
  }
  if (specs.length > MAX_APPS) {
    throw new XpmError('XPM_ERR_CONFIG_INVALID', `Expected at most ${MAX_APPS} app specs in one request, got ${specs.length}`,
      { details: { max: MAX_APPS, given: specs.length } })
  }
  const checked = specs.map((spec) => validateSpec(spec))
  for (const spec of checked) checkReusePort(spec)
  const seen = new Set()
  for (const { name } of checked) {
    if (seen.has(name)) throw new XpmError('XPM_ERR_DUPLICATE_APP', `two app specs are named "${name}"; app names must be unique`, { details: { name } })
    seen.add(name)
  }
  return checked
}

// reuse_port is done by the workers' Node, which is the daemon's (cluster.fork runs
// process.execPath): where it cannot listen with SO_REUSEPORT, the app is refused, not started
// with round-robin behind the user's back.
function checkReusePort (spec, { platform = process.platform, version = process.versions.node } = {}) {
  if (spec.reusePort !== true) return
  const problem = platform !== 'linux'
    ? `this daemon runs on ${platform}; it is supported on Linux only`
    : nodeHasReusePort(version) ? null : `this daemon runs Node ${version}; it needs Node 22.12 or later (23.1 or later on the 23 line), where net.Server#listen has reusePort`
  if (problem) {
    throw new XpmError('XPM_ERR_REUSE_PORT_UNSUPPORTED', `reuse_port of app "${spec.name}": ${problem}. Leave reuse_port out to use round-robin, or run xpm (\`xpm kill\`, then any command) with a newer Node`,
      { details: { name: spec.name, platform, node: version } })
  }
}

// What the daemon can only learn from the file system, asked asynchronously (never sync I/O in
// the daemon): the working directory exists and is a folder, the script exists and is a file.
// Without this a missing cwd leaves cluster workers in `launching` and fork mode blames
// `spawn node ENOENT`.
async function checkPaths (specs) {
  await Promise.all(specs.map(async (spec) => {
    const where = ` of app "${spec.name}"`
    const cwd = await stat(spec.cwd)
    if (!cwd?.isDirectory()) {
      throw new XpmError('XPM_ERR_CWD_INVALID', `cwd ${spec.cwd}${where} ${cwd ? 'is not a directory' : 'does not exist'}`,
        { details: { name: spec.name, cwd: spec.cwd } })
    }
    const script = await stat(spec.script)
    if (!script?.isFile()) {
      throw new XpmError('XPM_ERR_SCRIPT_NOT_FOUND', `script ${spec.script}${where} ${script ? 'is not a file' : 'does not exist'}`,
        { details: { name: spec.name, script: spec.script, path: spec.script } })
    }
  }))
  return specs
}

function stat (file) {
  return fs.promises.stat(file).catch(() => null)
}

// One daemon manages at most MAX_APPS apps: the names of a start that are new must fit.
function checkCapacity (specs, knownNames) {
  const added = specs.filter((s) => !knownNames.has(s.name)).length
  if (knownNames.size + added > MAX_APPS) {
    throw new XpmError('XPM_ERR_TOO_MANY_APPS',
      `Starting ${added} more app${added === 1 ? '' : 's'} would make ${knownNames.size + added}; one daemon manages at most ${MAX_APPS}`,
      { details: { managed: knownNames.size, added, max: MAX_APPS } })
  }
}

module.exports = { checkSpecs, checkPaths, checkCapacity, checkReusePort }
