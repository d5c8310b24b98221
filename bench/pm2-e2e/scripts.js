'use strict'

// What run.js reads from PM2's test tree and from the output of its scripts.
const fs = require('node:fs')
const path = require('node:path')

// The scripts PM2's test/e2e.sh runs (its `runTest` lines that are not commented out); with
// all, every script of test/e2e/ (those it leaves out or comments out too), after them.
function listScripts (src, only, all = false) {
  const text = fs.readFileSync(path.join(src, 'test', 'e2e.sh'), 'utf8')
  const scripts = [...text.matchAll(/^\s*runTest\s+(\S+)/gm)].map((m) => m[1])
  if (all) scripts.push(...everyScript(src).filter((s) => !scripts.includes(s)))
  if (!only) return scripts
  return scripts.filter((s) => only.some((o) => s.includes(o)))
}

// Scripts --all leaves out: they reach past their sandbox (a mount namespace does not hide the
// machine's other processes, containers or network).
const OUTSIDE = {
  'binaries/pm2-dev.sh': '`pkill -f Daemon` kills every process of that name on the machine',
  'binaries/pm2-runtime.sh': '`pkill -f PM2` kills every process of that name on the machine',
  'docker.sh': '`docker kill` of every running container',
  'pull.sh': 'clones a repository from GitHub',
  'misc/versioning-cmd.sh': 'clones a repository from GitHub',
  'cli/otel-install.sh': 'installs packages from npm into PM2\'s own folder'
}

// ./test/e2e/<folder>/<name>.sh for every script but include.sh (sourced by the others),
// editors' lock files (.#name.sh) and those of OUTSIDE.
function everyScript (src) {
  const root = path.join(src, 'test', 'e2e')
  return fs.readdirSync(root, { recursive: true })
    .map((f) => f.split(path.sep).join('/'))
    .filter((f) => f.endsWith('.sh') && f !== 'include.sh' && !path.basename(f).startsWith('.') && !OUTSIDE[f])
    .map((f) => `./test/e2e/${f}`)
    .sort()
}

// The first step that failed ("######## ✘ <what>", printed by include.sh's fail), with the line
// of the script that names it; else the last line of output.
function firstFailure (log, scriptFile) {
  const out = log.split('\n')
  const failedAt = out.findIndex((l) => l.includes('✘'))
  const lastLine = log.trim().split('\n').pop() || ''
  if (failedAt === -1) return lastLine ? `after: ${lastLine.slice(0, 160)}` : ''
  const what = out[failedAt].replace(/^#+\s*✘\s*/, '').trim()
  // the same words may name several steps: the one after those that passed
  const passedBefore = out.slice(0, failedAt).filter((l) => l.includes('✔') && l.replace(/^-+>\s*✔\s*/, '').trim() === what).length
  let lineNo = ''
  try {
    const lines = fs.readFileSync(scriptFile, 'utf8').split('\n')
    const at = lines.map((l, i) => (what && l.includes(what) ? i : -1)).filter((i) => i >= 0)[passedBefore]
    if (at !== undefined) lineNo = `line ${at + 1}: `
  } catch {}
  return `${lineNo}${what}`.slice(0, 200)
}

// Processes whose environment holds HOME=<home>: what a contender left running for one script.
function leftoverPids (home) {
  const needle = Buffer.from(`\0HOME=${home}\0`)
  const pids = []
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid) || pid === process.pid) continue
    let env
    try { env = fs.readFileSync(`/proc/${pid}/environ`) } catch { continue }
    if (Buffer.concat([Buffer.from([0]), env]).includes(needle)) pids.push(pid)
  }
  return pids
}

module.exports = { OUTSIDE, listScripts, firstFailure, leftoverPids }
