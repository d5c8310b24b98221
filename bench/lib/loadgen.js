'use strict'

const { run } = require('./util')

// One throughput run against http://127.0.0.1:<port>/ with wrk when it is installed, else
// autocannon from the tools folder. Resolves { rps, p99 (ms), errors, requests }.
async function loadRun (tools, port, { seconds = 4, connections = 50, loader } = {}) {
  const url = `http://127.0.0.1:${port}/`
  const use = loader || (tools.wrk ? 'wrk' : 'autocannon')
  if (use === 'wrk') {
    const res = await run('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '--timeout', '5s', url], { timeout: (seconds + 30) * 1000 })
    if (res.code !== 0) throw new Error(`wrk failed: ${res.stderr || res.stdout}`)
    return parseWrk(res.stdout)
  }
  const res = await run(process.execPath, [tools.autocannonBin, '-j', '-c', String(connections), '-d', String(seconds), url], { timeout: (seconds + 30) * 1000 })
  if (res.code !== 0) throw new Error(`autocannon failed: ${res.stderr}`)
  const j = JSON.parse(res.stdout)
  return {
    rps: j.requests.total / j.duration,
    p99: j.latency.p99,
    errors: j.errors + j.timeouts + j.non2xx,
    requests: j.requests.total
  }
}

function toMs (text) {
  const m = text.match(/([\d.]+)(us|ms|s|m)/)
  if (!m) return NaN
  return Number(m[1]) * { us: 0.001, ms: 1, s: 1000, m: 60000 }[m[2]]
}

function parseWrk (out) {
  const rps = Number(out.match(/Requests\/sec:\s+([\d.]+)/)?.[1])
  const p99 = toMs(out.match(/^\s*99%\s+(\S+)/m)?.[1] || '')
  const requests = Number(out.match(/(\d+) requests in/)?.[1])
  const sock = out.match(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/)
  const non2xx = Number(out.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] || 0)
  const errors = (sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0) + non2xx
  if (!Number.isFinite(rps)) throw new Error(`cannot read wrk output: ${out.slice(0, 200)}`)
  return { rps, p99, errors, requests }
}

module.exports = { loadRun, parseWrk }
