'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { XpmError } = require('../errors')
const { splitArgs, INVALID } = require('./types')

// Where an app's script is and what runs it, as PM2 users expect (CLI side: synchronous reads
// of the script's first bytes are fine here, never in the daemon).
//
//  - a path relative to cwd, or a bare name looked up on PATH (`npm`, `next`, `redis-server`);
//  - a whole command line (`'npm run start'`, `'deno run --allow-net app.ts'`) when no file has
//    that name: its first word is the script, the rest come before the app's args; `node [flags]
//    app.js …` runs app.js under Node with those flags; one with shell syntax (`a && b`, `;`,
//    `|`, `>`) runs under `bash -c`, as PM2 runs every command line;
//  - the interpreter from the extension (PM2's table), else from the file itself: an executable
//    whose first line names node (`#!/usr/bin/env node`: npm, yarn, next) runs under Node — in
//    cluster mode too — any other executable runs as itself, and a file that is neither runs
//    under Node, as in PM2. Every inference carries `why`, for the messages that depend on it.

const NODE_EXTENSIONS = new Set(['.js', '.cjs', '.mjs'])
const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx'])
// PM2's interpreters by extension (.py prefers python3, see below).
const BY_EXTENSION = { '.sh': 'bash', '.py': 'python3', '.rb': 'ruby', '.php': 'php', '.pl': 'perl', '.coffee': 'coffee', '.ls': 'lsc' }
// Node's options whose value is the next word (`node -r dotenv/config app.js`).
const NODE_VALUE_FLAGS = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '--env-file', '--conditions', '-C', '--title', '--inspect-port'])
const NODE_EVAL_FLAGS = new Set(['-e', '--eval', '-p', '--print', '-i', '--interactive', '-'])

// node, nodejs, /usr/local/bin/node, node18, node-v20.1.0, node.exe: a Node.js runtime.
function isNodeRuntime (interpreter) {
  if (typeof interpreter !== 'string' || interpreter === '') return false
  const base = interpreter.split(/[\\/]/).pop().toLowerCase().replace(/\.exe$/, '')
  return /^node(js)?([-@_]?v?\d+(\.\d+)*)?$/.test(base)
}

// Cluster mode runs Node scripts only: the daemon forks cluster workers with node:cluster, on
// its own Node. A cluster app's interpreter is therefore a Node runtime, recorded as 'node';
// null: this interpreter cannot run in cluster mode. The one statement of the rule (the config
// model refuses and rewrites with it, the daemon checks specs from the socket with it).
function clusterInterpreter (interpreter) {
  return isNodeRuntime(interpreter) ? 'node' : null
}

// 'nodejs', and the path of the Node that runs xpm, are plain 'node'.
function normalizeInterpreter (interpreter) {
  if (interpreter === 'node' || interpreter === 'nodejs') return 'node'
  if (path.isAbsolute(interpreter) && isNodeRuntime(interpreter) && sameFile(interpreter, process.execPath)) return 'node'
  return interpreter
}

function sameFile (a, b) {
  try { return fs.realpathSync(a) === fs.realpathSync(b) } catch { return false }
}

function whichSync (command, searchPath = '') {
  for (const dir of String(searchPath).split(path.delimiter)) {
    if (!dir) continue
    const file = path.join(dir, command)
    try {
      fs.accessSync(file, fs.constants.X_OK)
      if (fs.statSync(file).isFile()) return file
    } catch {}
  }
  return null
}

function defaultName (script) {
  return path.basename(script, path.extname(script))
}

// A file in cwd, or a bare name on PATH: { file } or { candidate, stat } when there is none.
function findFile (script, cwd, env) {
  const candidate = path.resolve(cwd, script)
  let stat = null
  try { stat = fs.statSync(candidate) } catch {}
  if (stat?.isFile()) return { file: candidate }
  if (!stat && !/[/\\]/.test(script)) {
    const onPath = whichSync(script, env.PATH)
    if (onPath) return { file: onPath, onPath: true }
  }
  return { candidate, stat }
}

function notFound (script, found, where) {
  const why = found.stat ? 'is not a file' : 'does not exist'
  const message = path.isAbsolute(script) ? `script "${script}"${where} ${why}` : `script "${script}"${where} not found: ${found.candidate} ${why}`
  return new XpmError('XPM_ERR_SCRIPT_NOT_FOUND', message, { details: { script, path: found.candidate } })
}

// given: the `script` value. → { script, args, nodeArgs, name, interpreter, why }, where args and
// nodeArgs come from a command line (before the app's own), and interpreter/why is the
// inference (used when the app does not name an interpreter).
function resolveScript (given, { cwd, env, where = '' }) {
  const found = findFile(given, cwd, env)
  if (found.file) return { script: found.file, args: [], nodeArgs: [], name: defaultName(given), ...inferInterpreter(found.file, env) }
  const shell = shellLine(given, env)
  if (shell) return shell
  const words = /\s/.test(given.trim()) ? splitArgs(given.trim()) : INVALID
  if (words === INVALID || words.length < 2) throw notFound(given, found, where)
  const [command, ...rest] = words
  const head = findFile(command, cwd, env)
  if (!head.file) {
    throw new XpmError('XPM_ERR_SCRIPT_NOT_FOUND',
      `script "${given}"${where}: no file of that name, and its first word "${command}" is neither a file in ${cwd} nor a program on PATH`,
      { details: { script: given, path: head.candidate } })
  }
  const name = defaultName(command)
  if (isNodeRuntime(head.file)) {
    const node = nodeCommandLine(rest)
    if (node) {
      const script = findFile(node.script, cwd, env)
      if (!script.file || script.onPath) throw notFound(node.script, script.file ? { candidate: path.resolve(cwd, node.script) } : script, where)
      const interpreter = normalizeInterpreter(head.file)
      return { script: script.file, args: node.args, nodeArgs: node.nodeArgs, name: defaultName(node.script), interpreter, why: `the command line starts with ${command}` }
    }
  }
  return { script: head.file, args: rest, nodeArgs: [], name, ...inferInterpreter(head.file, env) }
}

// A command line with shell syntax (`cc hello.c; ./a.out`, `npm run build && npm start`,
// `cmd > out.txt`) runs as PM2 runs any command line: `bash -c '<line>'` (sh without bash).
// Plain words (`npm run start`) keep running the program itself, without a shell in between,
// so signals reach it directly.
const SHELL_SYNTAX = /[;&|<>`]|\$\(/
function shellLine (given, env) {
  const line = given.trim()
  if (!/\s/.test(line) || !SHELL_SYNTAX.test(line)) return null
  const shell = whichSync('bash', env.PATH) ?? whichSync('sh', env.PATH)
  if (!shell) return null
  const first = line.split(/[\s;&|<>]/)[0]
  return { script: shell, args: ['-c', line], nodeArgs: [], name: defaultName(first || path.basename(shell)), interpreter: 'none', why: `"${line}" is a shell command line, run with ${path.basename(shell)} -c as in PM2` }
}

// `[flags] script [args]` after `node`; null when Node is not asked to run a file (-e, -p, -i).
function nodeCommandLine (words) {
  const nodeArgs = []
  for (let i = 0; i < words.length; i++) {
    const word = words[i]
    if (NODE_EVAL_FLAGS.has(word) || /^--(eval|print)=/.test(word)) return null
    if (word === '--') return i + 1 < words.length ? { nodeArgs, script: words[i + 1], args: words.slice(i + 2) } : null
    if (!word.startsWith('-')) return { nodeArgs, script: word, args: words.slice(i + 1) }
    nodeArgs.push(word)
    if (NODE_VALUE_FLAGS.has(word) && i + 1 < words.length) nodeArgs.push(words[++i])
  }
  return null
}

// → { interpreter, why[, shebangArgs] }: what runs `file` when the app does not say (shebangArgs:
// Node flags on its `#!` line, used when Node is inferred from it).
function inferInterpreter (file, env = process.env) {
  const ext = path.extname(file).toLowerCase()
  const base = path.basename(file)
  if (NODE_EXTENSIONS.has(ext)) return { interpreter: 'node', why: `${base} is a ${ext} file` }
  if (TS_EXTENSIONS.has(ext)) return typeScriptRunner(ext, env)
  if (ext === '.py') {
    // PM2 runs `python`, or python3 when there is none; Python 2 is long gone, so python3 first
    const py = whichSync('python3', env.PATH) ? 'python3' : whichSync('python', env.PATH) ? 'python' : 'python3'
    return { interpreter: py, why: `${base} is a .py file` }
  }
  if (BY_EXTENSION[ext]) return { interpreter: BY_EXTENSION[ext], why: `${base} is a ${ext} file` }
  const first = firstLine(file)
  if (!isExecutable(file)) return { interpreter: 'node', why: `${file} has no known extension and is not executable, so it runs under Node, as in PM2` }
  const shebang = nodeShebang(first)
  if (shebang) return { interpreter: 'node', why: `the first line of ${file} names node (${first.trim()})`, shebangArgs: shebang.nodeArgs }
  return { interpreter: 'none', why: `${file} is executable and its first line does not name node, so it runs as itself` }
}

// Node strips TypeScript types itself from 22.18 and 23.6 (process.features.typescript); else a
// runner on PATH. .tsx needs a runner (Node does not transform JSX).
function typeScriptRunner (ext, env) {
  if (ext !== '.tsx' && process.features?.typescript) return { interpreter: 'node', why: `Node ${process.version} runs ${ext} files itself (type stripping)` }
  for (const runner of ['tsx', 'ts-node', 'bun']) {
    if (whichSync(runner, env.PATH)) return { interpreter: runner, why: `a ${ext} file, and ${runner} is on PATH` }
  }
  return {
    interpreter: null,
    why: `a ${ext} file needs ${ext === '.tsx' ? '' : `Node 22.18 or later (this is ${process.version}), or `}tsx, ts-node or bun on PATH; none was found — set interpreter`
  }
}

function firstLine (file) {
  let fd
  try {
    fd = fs.openSync(file, 'r')
    const buffer = Buffer.alloc(256)
    const n = fs.readSync(fd, buffer, 0, buffer.length, 0)
    return buffer.subarray(0, n).toString('latin1').split('\n')[0]
  } catch {
    return ''
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

function isExecutable (file) {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return true
  } catch {
    return false
  }
}

// '#!/usr/bin/env node', '#!/usr/local/bin/node', '#!/usr/bin/env -S node --max-old-space-size=4096'
// → { nodeArgs }; anything else → null.
function nodeShebang (line) {
  if (!line.startsWith('#!')) return null
  const words = line.slice(2).trim().split(/\s+/).filter(Boolean)
  if (!words.length) return null
  let i = 0
  if (path.basename(words[0]) === 'env') {
    i = 1
    while (i < words.length && (words[i].startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]))) i++
  }
  if (i >= words.length || !isNodeRuntime(words[i])) return null
  return { nodeArgs: words.slice(i + 1).filter((w) => w.startsWith('-')) }
}

module.exports = { resolveScript, inferInterpreter, isNodeRuntime, clusterInterpreter, normalizeInterpreter, whichSync, defaultName, nodeShebang, nodeCommandLine, isExecutable }
