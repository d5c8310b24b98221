'use strict'

// A .json ecosystem that is neither JSON nor JSON5, read as PM2 reads it: one JavaScript
// expression, evaluated in a context without require or process, whose value is taken as JSON.
// It runs in a Node process of its own, SIGKILLed at the deadline, so nothing the expression
// does outlives the time limit: a vm context of the CLI's own process would run the promise
// callbacks it queues after the timed evaluation, in the CLI's microtask queue, with no limit
// (`Promise.resolve().then(() => { while (true) {} })` hung `xpm start` for ever), and a
// FinalizationRegistry callback or a toJSON getter later still. In the child: microtasks run
// inside the timed evaluation (microtaskMode 'afterEvaluate'), and so does JSON.stringify.
const { spawnSync } = require('node:child_process')

const TIMEOUT_MS = 1000 // the evaluation, promise callbacks included
const START_MS = 10000 // a Node process's own start on a loaded machine, on top
const MAX_OUTPUT = 16 * 1024 * 1024

const CHILD = `let text = ''
process.stdin.setEncoding('utf8').on('data', (d) => { text += d }).on('end', () => {
  const vm = require('node:vm')
  const context = vm.createContext(Object.create(null), { microtaskMode: 'afterEvaluate' })
  let out
  try {
    out = vm.runInContext('JSON.stringify((' + text + '\\n))', context, { filename: process.argv[1], timeout: ${TIMEOUT_MS} })
  } catch (err) {
    process.stdout.write(err && err.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT' ? 'T' : 'E')
    process.exit(0)
  }
  process.stdout.write(typeof out === 'string' ? 'V' + out : 'E')
  process.exit(0)
})`

// → { value } (undefined when the text is no expression or has no JSON value), or
// { timedOut: ms } when it did not finish in time.
function evaluateExpression (text, file, { timeoutMs = TIMEOUT_MS } = {}) {
  const r = spawnSync(process.execPath, ['-e', CHILD, file], {
    input: text,
    encoding: 'utf8',
    env: {}, // no NODE_OPTIONS: the child is Node alone
    timeout: timeoutMs + START_MS,
    killSignal: 'SIGKILL',
    maxBuffer: MAX_OUTPUT,
    stdio: ['pipe', 'pipe', 'ignore']
  })
  const out = r.stdout || ''
  if (out === 'T' || r.signal === 'SIGKILL') return { timedOut: timeoutMs }
  if (r.status !== 0 || !out.startsWith('V')) return { value: undefined }
  try {
    return { value: JSON.parse(out.slice(1)) }
  } catch {
    return { value: undefined }
  }
}

module.exports = { evaluateExpression }
