'use strict'

// The bundled background job: a fork-mode process that does a little work every few seconds.
let ticks = 0
setInterval(() => {
  ticks++
  console.log(`worker tick ${ticks} (${process.env.JOB_MODE || 'default'} mode)`)
}, Number(process.env.TICK_MS || 5000))
