'use strict'

const fs = require('node:fs')
const { spawnSync } = require('node:child_process')
const { XpmError } = require('../errors')

// uid and gid of an app (PM2's `uid`/`user` and `gid`): numbers, or names looked up by the CLI
// (the daemon only ever sees numbers) in /etc/passwd and /etc/group, then through the system's
// user database (`getent`: LDAP, SSSD, systemd-homed, whatever nsswitch.conf names). The CLI
// runs once per command, so a lookup that waits for the directory blocks nobody else. An app given a user
// and no group runs with that user's primary group, never with the daemon's (root's) group.
// Running an app as another user needs the daemon to run as root (validate-spec.js says so).

function readTable (file) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split(':'))
  } catch {
    return []
  }
}

// One entry of a getent database ('passwd', 'group') by name or number, as fields, or null.
function getent (db, key) {
  const res = spawnSync('getent', [db, String(key)], { encoding: 'utf8', timeout: 10000 })
  if (res.error || res.status !== 0) return null
  const line = res.stdout.split('\n').find(Boolean)
  return line ? line.split(':') : null
}

function unknown (key, kind, value, where, file) {
  return new XpmError('XPM_ERR_CONFIG_INVALID', `Expected \`${key}\` to be a ${kind} of this machine, got ${JSON.stringify(value)}${where} (not in ${file}, nor known to getent)`,
    { details: { key, given: value } })
}

// → { uid, gid } (numbers or null). files: for tests.
// lookup: for tests (getent by default).
function resolveUser ({ uid = null, gid = null }, { where = '', passwd = '/etc/passwd', group = '/etc/group', lookup = getent } = {}) {
  if (uid === null && gid === null) return { uid: null, gid: null }
  let user = null
  if (uid !== null) {
    const rows = readTable(passwd)
    user = (typeof uid === 'number' ? rows.find((r) => Number(r[2]) === uid) : rows.find((r) => r[0] === uid)) ?? lookup('passwd', uid)
    if (!user && typeof uid !== 'number') throw unknown('uid', 'user', uid, where, passwd)
  }
  let groupId = null
  if (gid !== null) {
    if (typeof gid === 'number') groupId = gid
    else {
      const row = readTable(group).find((r) => r[0] === gid) ?? lookup('group', gid)
      if (!row) throw unknown('gid', 'group', gid, where, group)
      groupId = Number(row[2])
    }
  } else if (user) {
    groupId = Number(user[3])
  } else if (uid !== null) {
    throw new XpmError('XPM_ERR_CONFIG_INVALID', `uid ${uid}${where} is not in ${passwd}, so its group is not known: give \`gid\` too`, { details: { key: 'gid' } })
  }
  return { uid: uid === null ? null : user ? Number(user[2]) : uid, gid: groupId }
}

// Why this process cannot start an app with these ids, or null: switching user or group needs
// root (the daemon's own ids are always fine).
function privilegeProblem ({ uid = null, gid = null }) {
  if (typeof process.getuid !== 'function' || process.getuid() === 0) return null
  const other = (uid !== null && uid !== process.getuid()) || (gid !== null && gid !== process.getgid())
  return other ? `running an app as another user or group (uid ${uid ?? '-'}, gid ${gid ?? '-'}) needs the xpm daemon to run as root; it runs as uid ${process.getuid()}` : null
}

module.exports = { resolveUser, privilegeProblem }
