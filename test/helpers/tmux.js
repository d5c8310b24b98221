'use strict'

// Drives a program in a real terminal: a detached tmux session on a private server socket
// (`tmux -L <unique>`), so tests never touch the user's or each other's tmux servers.
// The pane stays around after the program exits (remain-on-exit) so its exit status and the
// restored screen can be checked; kill() ends the private server and everything in it.

const crypto = require('node:crypto')
const fs = require('node:fs')
const { execFile } = require('node:child_process')
const { setTimeout: delay } = require('node:timers/promises')

const TMUX = process.env.XPM_TEST_TMUX || 'tmux'
const EXIT_MARK = /\[tmux-helper exit (\d+)\]/

function tmuxAvailable () {
  return new Promise((resolve) => {
    execFile(TMUX, ['-V'], (err) => resolve(!err))
  })
}

function shellQuote (arg) {
  return `'${String(arg).replace(/'/g, "'\\''")}'`
}

class TmuxSession {
  constructor ({ socket, name, env }) {
    this.socket = socket
    this.name = name
    this.env = env
    this.target = `${name}:0.0`
    this.killed = false
  }

  // command: an argv array (quoted for the shell) or a shell string. env is the whole
  // environment of the server, hence of the program; TERM is set inside by tmux.
  static async start ({ command, cols = 120, rows = 40, env = process.env, cwd = process.cwd() }) {
    const id = crypto.randomBytes(6).toString('hex')
    const session = new TmuxSession({ socket: `xpm-test-${process.pid}-${id}`, name: `xpm${id}`, env })
    const line = Array.isArray(command) ? command.map(shellQuote).join(' ') : command
    const wrapped = `${line}; printf '\\n[tmux-helper exit %s]\\n' "$?"`
    await session.tmux([
      '-f', '/dev/null',
      'new-session', '-d', '-s', session.name, '-x', String(cols), '-y', String(rows), '-c', cwd, wrapped,
      // Chained in the same server command, so it is set before the program can exit.
      ';', 'set-option', '-t', session.name, 'remain-on-exit', 'on'
    ], { cwd })
    return session
  }

  tmux (args, { cwd } = {}) {
    return new Promise((resolve, reject) => {
      execFile(TMUX, ['-L', this.socket, ...args], { env: this.env, cwd, timeout: 10000 }, (err, stdout, stderr) => {
        if (err) reject(new Error(`tmux ${args.join(' ')} failed: ${stderr || err.message}`, { cause: err }))
        else resolve(stdout)
      })
    })
  }

  // keys as tmux names them: 'j', 'Down', 'Escape', 'C-c', 'q'.
  sendKeys (...keys) {
    return this.tmux(['send-keys', '-t', this.target, ...keys])
  }

  // The visible screen as plain text, one line per row.
  capture () {
    return this.tmux(['capture-pane', '-p', '-t', this.target])
  }

  resize (cols, rows) {
    return this.tmux(['resize-window', '-t', this.name, '-x', String(cols), '-y', String(rows)])
  }

  async display (format) {
    return (await this.tmux(['display-message', '-p', '-t', this.target, format])).trim()
  }

  // Resolves with the screen once it matches (a string or RegExp); rejects after the
  // deadline with the last screen in the message.
  async waitForText (pattern, { timeout = 10000, interval = 50 } = {}) {
    const deadline = Date.now() + timeout
    let screen = ''
    while (Date.now() < deadline) {
      screen = await this.capture()
      if (typeof pattern === 'string' ? screen.includes(pattern) : pattern.test(screen)) return screen
      await delay(interval)
    }
    throw new Error(`Timed out after ${timeout} ms waiting for ${pattern} on the screen:\n${screen}`)
  }

  // Resolves with the program's exit status (128 + n when killed by signal n). The shell that
  // runs the program prints it after the program ends: tmux's own #{pane_dead_status} is
  // sometimes never filled in when the terminal closes before the child is reaped (tmux 3.3).
  async waitForExit ({ timeout = 10000 } = {}) {
    const screen = await this.waitForText(EXIT_MARK, { timeout })
    return Number(screen.match(EXIT_MARK)[1])
  }

  // The pid of the program (the child of the pane's shell), for CPU figures or cleanup.
  async pid () {
    const shell = await this.display('#{pane_pid}')
    const children = fs.readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8').trim().split(/\s+/)
    return Number(children[0]) || Number(shell)
  }

  // Whether the pane is in the alternate screen (a full-screen UI that has not restored it).
  async alternateScreen () {
    return (await this.display('#{alternate_on}')) === '1'
  }

  async kill () {
    if (this.killed) return
    this.killed = true
    await this.tmux(['kill-server']).catch(() => {})
  }
}

module.exports = { TmuxSession, tmuxAvailable }
