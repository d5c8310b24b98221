'use strict'

const crypto = require('node:crypto')
const { run } = require('./util')

// A program in a real terminal: a private tmux server (-L) so nothing touches the user's.
async function tmuxStart (argv, { env, cols = 120, rows = 40 }) {
  const socket = `xpm-bench-${process.pid}-${crypto.randomBytes(4).toString('hex')}`
  const quote = (a) => `'${String(a).replace(/'/g, "'\\''")}'`
  const line = `exec ${argv.map(quote).join(' ')}`
  const tmux = (args) => run('tmux', ['-L', socket, ...args], { env, timeout: 10000 })
  const res = await tmux(['-f', '/dev/null', 'new-session', '-d', '-s', 'bench', '-x', String(cols), '-y', String(rows), line])
  if (res.code !== 0) throw new Error(`tmux failed: ${res.stderr}`)
  return {
    async pid () { return Number((await tmux(['display-message', '-p', '-t', 'bench:0.0', '#{pane_pid}'])).stdout.trim()) },
    async capture () { return (await tmux(['capture-pane', '-p', '-t', 'bench:0.0'])).stdout },
    async kill () { await tmux(['kill-server']) }
  }
}

async function tmuxAvailable () {
  return (await run('tmux', ['-V'], { timeout: 5000 })).code === 0
}

module.exports = { tmuxStart, tmuxAvailable }
