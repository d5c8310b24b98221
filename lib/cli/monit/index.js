'use strict'

// `xpm monit`: subscribes to the daemon's process and log pushes and drives the dashboard.
// It repaints on each push (~1 Hz), on key presses and on resize; log lines arriving between
// pushes are coalesced into at most one extra paint per LOG_PAINT_MS. No timer runs while idle.

const { MonitModel, MONIT_FIELDS } = require('./model')
const { watchShown } = require('./watch-shown')
const { recentLogs } = require('./recent-logs')

const LOG_PAINT_MS = 200
const GONE_MESSAGE = 'xpm monit: the xpm daemon went away'

// Resolves with the exit code: 0 when the user quits, 1 when the daemon goes away.
// The caller owns the client and closes it afterwards.
// signals: where SIGTERM and SIGHUP arrive (the program's, lib/cli/io.js).
async function runMonit ({ client, stdout = process.stdout, stdin = process.stdin, stderr = process.stderr, signals = process, model = new MonitModel() }) {
  const early = []
  let handle = (msg) => early.push(msg)
  let gone = false
  const onEvent = (msg) => handle(msg)
  const onClose = () => { gone = true; handle({ event: 'close' }) }
  client.on('event', onEvent)
  client.on('close', onClose)
  const detach = () => {
    client.off('event', onEvent)
    client.off('close', onClose)
  }

  let reply
  try {
    // ids: none in full until the first paint says which rows are shown (watch-shown.js)
    // changes: pushes of what changed only (an older daemon ignores it and pushes whole lists)
    reply = await client.request('subscribe', { topics: ['processes', 'logs'], fields: MONIT_FIELDS, ids: [], changes: true })
  } catch (err) {
    detach()
    throw err
  }
  model.watch([])
  model.seed(reply || {})
  if (gone) {
    detach()
    stderr.write(GONE_MESSAGE + '\n')
    return 1
  }

  const { createScreen } = require('./screen')
  const view = createScreen({ stdin, stdout })

  return new Promise((resolve) => {
    let timer = null
    let done = false
    const shown = watchShown({ client, model, onHistory: () => draw() })
    const recent = recentLogs({ client, model, onLines: () => draw() })
    const draw = () => {
      if (done) return
      clearTimeout(timer)
      timer = null
      view.draw(model)
      shown.sync()
      recent.sync()
    }
    const finish = (code, message) => {
      if (done) return
      done = true
      clearTimeout(timer)
      shown.close()
      recent.close()
      detach()
      stopListening()
      view.destroy()
      if (message) stderr.write(message + '\n')
      resolve(code)
    }
    // Restore the terminal when killed; without this the shell is left in the alternate screen.
    const stopListening = require('../io').onSignals(signals, ['SIGTERM', 'SIGHUP'], (signal) => finish(signal === 'SIGHUP' ? 129 : 143))

    handle = ({ event, data }) => {
      if (event === 'processes' || event === 'processChanges') {
        if (event === 'processes') model.setProcesses(data)
        else model.applyChanges(data)
        draw()
      } else if (event === 'log') {
        if (model.addLog(data) && !timer) timer = setTimeout(draw, LOG_PAINT_MS)
      } else if (event === 'close') {
        finish(1, GONE_MESSAGE)
      }
    }
    for (const msg of early.splice(0)) handle(msg)
    if (done) return

    view.onKey(['q', 'escape', 'C-c'], () => finish(0))
    view.onKey(['up', 'k'], () => model.move(-1) && draw())
    view.onKey(['down', 'j'], () => model.move(1) && draw())
    view.onKey(['pageup'], () => model.move(-10) && draw())
    view.onKey(['pagedown'], () => model.move(10) && draw())
    view.onKey(['home', 'g'], () => model.moveTo(0) && draw())
    view.onKey(['end', 'S-g'], () => model.moveTo(model.processes.length - 1) && draw())
    view.onResize(draw)
    draw()
  })
}

module.exports = { runMonit, GONE_MESSAGE }
