'use strict'

// Helpers for the `xpm web` tests: run the server as the CLI does (its own process, by pid),
// talk to it over HTTP, and find the system's chromium for puppeteer-core.

const fs = require('node:fs')
const http = require('node:http')
const { spawn } = require('node:child_process')
const { BIN } = require('./xpm')
const { waitFor } = require('./wait')

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p)) || null

// Starts `xpm web <args>` for this home (home.cwd: where it runs, for `--hosts`); resolves { url,
// port, token, pid, stop() }. The token is read from the address's fragment (#token=; a query's in
// earlier versions).
async function startWeb (home, args = [], t) {
  const child = spawn(process.execPath, [BIN, 'web', '--port', '0', ...args], { env: home.env, cwd: home.cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => { stdout += d })
  child.stderr.on('data', (d) => { stderr += d })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      try { process.kill(child.pid, 'SIGTERM') } catch {}
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000).unref())])
      if (child.exitCode === null && child.signalCode === null) try { process.kill(child.pid, 'SIGKILL') } catch {}
    }
  }
  if (t) t.after(stop)
  const url = await waitFor(() => /(https?:\/\/\S+[#?]token=\S+)/.exec(stdout)?.[1], { timeout: 30000, message: `the URL from xpm web (stderr: ${stderr})` })
  const u = new URL(url)
  return { url, port: Number(u.port), token: new URLSearchParams(u.hash.slice(1)).get('token') ?? u.searchParams.get('token'), pid: child.pid, stop, output: () => ({ stdout, stderr }) }
}

// One HTTP request to 127.0.0.1:port; resolves { status, headers, body, json }.
function request (port, { method = 'GET', path = '/', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false, timeout: 30000 }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d) => { text += d })
      res.on('end', () => {
        let json = null
        try { json = JSON.parse(text) } catch {}
        resolve({ status: res.statusCode, headers: res.headers, body: text, json })
      })
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', reject)
    req.end(body)
  })
}

// Logs `page` in to the dashboard `web` (startWeb's answer) as a person does: the printed URL.
async function openDashboard (page, web) {
  await page.goto(web.url)
}

function launchBrowser (extraArgs = []) {
  const puppeteer = require('puppeteer-core')
  return puppeteer.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless=new', '--disable-gpu', '--no-first-run', ...extraArgs] })
}

module.exports = { startWeb, request, launchBrowser, openDashboard, CHROMIUM }
