'use strict'

// A process that failed its start and is `waiting restart` is not given up on: the daemon
// starts it again with backoff until it stays up or turns errored. Said, with how to stop it.
async function sayRetrying (client, failures, stderr = process.stderr) {
  const failed = new Set(failures.map((f) => f.id).filter((id) => id !== null && id !== undefined))
  if (!failed.size) return
  const rows = await client.request('list', { fields: ['id', 'name', 'instance', 'status'] }).catch(() => [])
  // waiting restart, or already launching its next try
  const retrying = rows.filter((p) => failed.has(p.id) && (p.status === 'waiting restart' || p.status === 'launching'))
  const apps = [...new Set(retrying.map((p) => p.name))]
  if (!apps.length) return
  stderr.write(`[xpm] ${retrying.map((p) => `${p.name}[${p.instance}]`).join(', ')} ${retrying.length === 1 ? 'is' : 'are'} being retried: xpm keeps restarting ${retrying.length === 1 ? 'it' : 'them'} (with backoff) until ${retrying.length === 1 ? 'it stays' : 'they stay'} up or ${retrying.length === 1 ? 'turns' : 'turn'} errored; ` +
    `stop with \`xpm stop ${apps.join(' ')}\`, see why with \`xpm why ${apps[0]}\`\n`)
}

module.exports = { sayRetrying }
