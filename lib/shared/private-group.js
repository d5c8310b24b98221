'use strict'

const fs = require('node:fs')

// A user-private group: Debian and Ubuntu give every account a group of its own and a umask of
// 002, so the folders a user makes are group-writable (0775) for a group with nobody else in it.
// Such a group is as good as the user alone: a folder writable by it is no folder another user
// can write. The group counts as private when /etc/group lists it with no member but the user and
// no other account in /etc/passwd has it as its primary group. A gid that /etc/group does not list
// (a directory service) is not private: there is no saying who is in it.

// Pure: the two files' text, the user's uid and gid → that gid when it is private, else null.
function privateGroupOf ({ passwd, group }, { uid, gid }) {
  const accounts = rows(passwd).filter((f) => f.length >= 4).map((f) => ({ name: f[0], uid: Number(f[2]), gid: Number(f[3]) }))
  const me = accounts.find((a) => a.uid === uid)
  if (!me) return null
  if (accounts.some((a) => a.gid === gid && a.uid !== uid)) return null
  const entry = rows(group).find((f) => f.length >= 3 && Number(f[2]) === gid)
  if (!entry) return null
  const members = (entry[3] || '').split(',').map((m) => m.trim()).filter(Boolean)
  return members.every((m) => m === me.name) ? gid : null
}

function rows (text) {
  return String(text).split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#')).map((l) => l.split(':'))
}

// The current user's private group, read now (asynchronously), or null; never throws.
async function readPrivateGroup ({ fsp = fs.promises, uid = process.getuid?.(), gid = process.getgid?.() } = {}) {
  if (uid === undefined || gid === undefined || typeof fsp.readFile !== 'function') return null
  try {
    const [passwd, group] = await Promise.all([fsp.readFile('/etc/passwd', 'utf8'), fsp.readFile('/etc/group', 'utf8')])
    return privateGroupOf({ passwd, group }, { uid, gid })
  } catch {
    return null
  }
}

module.exports = { privateGroupOf, readPrivateGroup }
