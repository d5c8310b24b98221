'use strict'

const fs = require('node:fs')
const path = require('node:path')

// The soak's 20 apps (bench/soak.js), written into `dir`, as one ecosystem file per contender:
// the same apps, with xpm's own keys (probes, log rotation) only where PM2 has no such thing
// (PM2 rotates logs only with the pm2-logrotate module, not installed here: its log writers'
// files grow; it has no probes: its probed app runs without one).
const SCRIPTS = {
  'crasher.js': "'use strict'\nsetTimeout(() => process.exit(1), 1000 + Math.random() * 1000)\n",
  'http.js': "'use strict'\nconst body = JSON.stringify({ pid: process.pid })\nrequire('node:http').createServer((req, res) => { res.setHeader('content-type', 'application/json'); res.end(body) }).listen(Number(process.env.PORT))\n",
  // ~200 KB/s: 20 lines of ~1 KB every 100 ms
  'logger.js': "'use strict'\nconst line = 'x'.repeat(1000)\nlet n = 0\nsetInterval(() => { let s = ''; for (let i = 0; i < 20; i++) s += ++n + ' ' + line + '\\n'; process.stdout.write(s) }, 100)\n",
  // grows ~2 MB/s until the memory limit restarts it
  'memhog.js': "'use strict'\nconst kept = []\nsetInterval(() => kept.push(Buffer.alloc(2 * 1024 * 1024, 1)), 1000)\n",
  'idle.js': "'use strict'\nsetInterval(() => {}, 1e9)\n"
}

// → { file: ecosystem path, ports: { api, web, probed }, names: { reload, scale, restart, show, logs } }
function writeApps (dir, tool, ports) {
  for (const [name, text] of Object.entries(SCRIPTS)) fs.writeFileSync(path.join(dir, name), text)
  const s = (name) => path.join(dir, name)
  const xpm = tool === 'xpm'
  const apps = []
  // runs of 1–2 s are stable (min_uptime); max_restarts as high as it goes, or xpm would mark them
  // errored after 16 crashes within its restart_window (1 minute)
  for (let i = 0; i < 4; i++) apps.push({ name: `crash${i}`, script: s('crasher.js'), min_uptime: xpm ? '500ms' : 500, max_restarts: 100000 })
  apps.push({ name: 'api', script: s('http.js'), exec_mode: 'cluster', instances: 2, env: { PORT: String(ports.api) } })
  apps.push({ name: 'web', script: s('http.js'), exec_mode: 'cluster', instances: 2, env: { PORT: String(ports.web) } })
  for (let i = 0; i < 2; i++) {
    apps.push({ name: `logger${i}`, script: s('logger.js'), ...(xpm ? { log_max_size: '2M', log_max_files: 3 } : {}) })
  }
  apps.push({ name: 'memhog', script: s('memhog.js'), max_memory_restart: '120M' })
  apps.push({ name: 'cron', script: s('idle.js'), cron_restart: '* * * * *' })
  apps.push({
    name: 'probed',
    script: s('http.js'),
    env: { PORT: String(ports.probed) },
    ...(xpm ? { readiness: { http: '/healthz', interval: '5s' }, liveness: { http: '/healthz', interval: '5s', timeout: '2s', failure_threshold: 3 } } : {})
  })
  for (let i = 0; apps.length < 20; i++) apps.push({ name: `idle${i}`, script: s('idle.js') })
  const file = path.join(dir, `${tool}.config.js`)
  fs.writeFileSync(file, `module.exports = ${JSON.stringify({ apps }, null, 2)}\n`)
  return { file, idle: s('idle.js') }
}

module.exports = { writeApps }
