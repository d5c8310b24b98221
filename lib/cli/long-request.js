'use strict'

// A request whose end depends on the apps: start, restart. The daemon pushes
// { type: 'begin', expectMs } first (the longest of the apps' own listen_timeout, plus
// kill_timeout when they are stopped first: apps start in parallel, so their waits are never
// summed), then one { type: 'online' | 'failed', ... } per process as it happens. The CLI waits
// that long plus a margin, counted again from each process's news (a start of 1,000 processes
// takes longer than any one listen_timeout, yet keeps moving): it stops waiting when nothing
// happened for that long, and then says the daemon is still at work, and how to watch it,
// instead of reporting a failure.
const MARGIN_MS = 10000
const BEFORE_BEGIN_MS = 60000 // until the daemon has said how long (it may be finishing another command of the app)

class StillWorking extends Error {}

async function longRequest (client, method, params, { onProgress = () => {} } = {}) {
  let timer = null
  let onEvent
  let begun = false
  let deadline = 0
  let window = 0 // the longest wait a 'begin' asked for
  const startedAt = Date.now()
  const gaveUp = new Promise((resolve, reject) => {
    const arm = (ms) => {
      clearTimeout(timer)
      deadline = Date.now() + ms
      timer = setTimeout(() => reject(new StillWorking(`waited ${Math.round((Date.now() - startedAt) / 1000)} s`)), ms)
    }
    arm(BEFORE_BEGIN_MS)
    onEvent = ({ event, data }) => {
      if (event !== 'progress' || !data) return
      if (data.type !== 'begin') {
        if (begun) arm(window) // a process came online, failed or finished: the work goes on
        return onProgress(data)
      }
      // one request may hold several jobs (startOrRestart: a start and a restart), each with its
      // begin: the CLI waits for the longest
      const ms = Math.max(0, Number(data.expectMs) || 0) + MARGIN_MS
      window = Math.max(window, ms)
      if (!begun || Date.now() + ms > deadline) arm(ms)
      begun = true
    }
    client.on('event', onEvent)
  })
  try {
    return await Promise.race([client.request(method, params, { timeout: 0 }), gaveUp])
  } finally {
    clearTimeout(timer)
    client.off('event', onEvent)
  }
}

// One line per process as it comes online, on a terminal only: pipes and --json get the result.
function progressPrinter ({ json = false, stream = process.stdout } = {}) {
  if (json || !stream.isTTY) return () => {}
  return (p) => {
    const who = `${p.app}[${p.instance}]`
    if (p.type === 'online') stream.write(`[xpm] ${who} online (pid ${p.pid})\n`)
    else if (p.type === 'failed') stream.write(`[xpm] ${who} did not come online: ${p.reason}\n`)
    else if (p.type === 'finished') stream.write(`[xpm] ${who} finished (exit code ${p.code})\n`)
  }
}

function printStillWorking (targets, err, stderr = process.stderr) {
  const names = targets.filter(Boolean).join(' ')
  stderr.write(`[xpm] stopped waiting after ${err.message.replace(/^waited /, '')}; the daemon is still working on it.\n` +
    `[xpm] watch it with \`xpm list\`, or \`xpm logs${names ? ' ' + names : ''}\`\n`)
}

module.exports = { longRequest, progressPrinter, printStillWorking, StillWorking, MARGIN_MS }
