'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { XpmError } = require('../shared/errors')

// Targets as typed → what the daemon resolves (daemon/supervisor.js resolve()). Names, ids,
// namespaces and `all` go as they are; a path with a slash is made absolute (the daemon matches
// it against the apps' scripts, as it matches a bare file name such as `echo.js`); a regular
// expression such as /^api-/ is run here, in the CLI, against the app names, and replaced by the
// names it matches (the daemon never runs a user's pattern: a slow one would block its loop).
const REGEX = /^\/(.+)\/([dgimsuyv]*)$/

function regexOf (target) {
  const m = REGEX.exec(target)
  if (!m || exists(target)) return null
  try {
    return new RegExp(m[1], m[2].replace(/[gy]/g, ''))
  } catch (err) {
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', `${target} is not a valid regular expression: ${err.message}`)
  }
}

function exists (file) {
  try { fs.statSync(file); return true } catch { return false }
}

async function expandTargets (client, targets, { cwd = process.cwd() } = {}) {
  const out = []
  let names = null
  for (const t of targets) {
    const re = regexOf(t)
    if (re) {
      names ??= [...new Set((await client.request('list', { fields: ['name'] })).map((p) => p.name))]
      const matched = names.filter((n) => re.test(n))
      if (!matched.length) {
        throw new XpmError('XPM_ERR_APP_NOT_FOUND', `No app name matches ${t}` + (names.length ? ` (known apps: ${names.join(', ')})` : ' (no apps are managed)'), { details: { target: t } })
      }
      out.push(...matched)
    } else if (/[/\\]/.test(t)) out.push(path.resolve(cwd, t))
    else out.push(t)
  }
  return [...new Set(out)]
}

// One target goes as a string (as before several targets existed), several as an array.
function wire (targets) {
  return targets.length === 1 ? targets[0] : targets
}

module.exports = { expandTargets, wire, regexOf }
