'use strict'

async function init () {
  const { writeStarter } = require('../../shared/config/starter-template')
  const file = await writeStarter(process.cwd())
  process.stdout.write(`[xpm] wrote ${file}\n[xpm] start it with: xpm start ${require('node:path').basename(file)}\n`)
}

module.exports = { init }
