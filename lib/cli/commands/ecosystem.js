'use strict'

async function init (ctx) {
  const { writeStarter } = require('../../shared/config/starter-template')
  const { file, backup } = await writeStarter(ctx.io.cwd())
  if (backup) ctx.io.stdout.write(`[xpm] ${file} existed: kept as ${backup}\n`)
  ctx.io.stdout.write(`[xpm] wrote ${file}\n[xpm] start it with: xpm start ${require('node:path').basename(file)}\n`)
}

module.exports = { init }
