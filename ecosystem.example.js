'use strict'

// A working example: `npx xpm start ecosystem.example.js` (add `--env production` for env_production).
module.exports = {
  apps: [
    {
      name: 'hello',
      script: './examples/hello/server.js',
      instances: 2, // cluster mode: two workers share port 3000
      exec_mode: 'cluster',
      env: { PORT: process.env.PORT || 3000, GREETING: 'hello' },
      env_production: { GREETING: 'hello (production)', NODE_ENV: 'production' },
      kill_timeout: '5s',
      max_memory_restart: '300M'
    },
    {
      name: 'ticker',
      script: './examples/hello/worker.js', // fork mode: one process
      env: { TICK_MS: 5000 },
      env_production: { JOB_MODE: 'production' }
    }
  ]
}
