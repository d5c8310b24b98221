'use strict'

async function init (ctx) {
  const { writeStarter } = require('../../shared/config/starter-template')
  const file = await writeStarter(ctx.io.cwd())
  ctx.io.stdout.write(`[xpm] wrote ${file}\n[xpm] start it with: xpm start ${require('node:path').basename(file)}\n`)
}

module.exports = { init }
