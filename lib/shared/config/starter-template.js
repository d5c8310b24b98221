'use strict'

const fs = require('node:fs/promises')
const path = require('node:path')
const { XpmError } = require('../errors')

const FILE_NAME = 'ecosystem.config.js'

const TEMPLATE = `'use strict'

// xpm ecosystem file: \`xpm start ecosystem.config.js\` starts every app below.
// Relative paths resolve against the app's cwd, which defaults to this file's folder.
// Every option is listed in docs/ecosystem.md; an unknown or misspelled key is an error.
module.exports = {
  apps: [
    {
      name: 'web',
      script: './server.js',
      // One worker per CPU, in cluster mode: \`xpm reload web\` replaces them one at a time.
      instances: 'max',
      exec_mode: 'cluster',
      env: {
        NODE_ENV: 'development',
        PORT: 3000
      },
      // Merged over env with \`xpm start ecosystem.config.js --env production\`.
      env_production: {
        NODE_ENV: 'production'
      },
      // Time a worker gets to finish its requests after the stop signal, then SIGKILL.
      kill_timeout: '5s',
      max_memory_restart: '512M'
    }
    // {
    //   name: 'worker',
    //   script: './worker.js',       // fork mode: one process
    //   env_file: '.env',            // dotenv file merged into env
    //   max_restarts: 16,            // unstable restarts within restart_window before "errored"
    //   min_uptime: '1s',
    //   cron_restart: '0 3 * * *',
    //   log_max_size: '10M'
    // }
  ]
}
`

// Writes the starter file in dir. As PM2's init, an existing one is replaced, but it is kept
// first as <file>.bak-<time> (a hand-written file is not lost to a stray `init`).
async function writeStarter (dir = process.cwd(), { now = () => new Date() } = {}) {
  const file = path.join(dir, FILE_NAME)
  let backup = null
  try {
    await fs.writeFile(file, TEMPLATE, { flag: 'wx' })
  } catch (err) {
    if (err.code !== 'EEXIST') throw err
    backup = `${file}.bak-${now().toISOString().replace(/[-:]/g, '')}`
    await fs.rename(file, backup)
    try {
      await fs.writeFile(file, TEMPLATE, { flag: 'wx' })
    } catch (again) {
      if (again.code === 'EEXIST') throw new XpmError('XPM_ERR_FILE_EXISTS', `${file} was written again while xpm replaced it; left as it is (the previous one is ${backup})`, { cause: again, details: { file, backup } })
      throw again
    }
  }
  return { file, backup }
}

module.exports = { TEMPLATE, FILE_NAME, writeStarter }
