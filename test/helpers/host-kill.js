'use strict'

// A "host" of the fleet tests dying: its sshd (test/helpers/sshd.js) and every sshd session it
// forked are killed by pid (SIGKILL), so the connections to it drop as when a machine goes away.
// Only processes named sshd* under that listener are touched; the host's daemon is left to its
// home's cleanup.
const fs = require('node:fs')

function sshdTree (root) {
  const children = new Map()
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      if (!children.has(ppid)) children.set(ppid, [])
      children.get(ppid).push({ pid: Number(entry), comm })
    } catch {}
  }
  const out = [root]
  for (let i = 0; i < out.length; i++) for (const c of children.get(out[i]) || []) if (c.comm.startsWith('sshd')) out.push(c.pid)
  return out
}

function killHost (sshdPid) {
  for (const pid of sshdTree(sshdPid)) try { process.kill(pid, 'SIGKILL') } catch {}
}

module.exports = { killHost, sshdTree }
