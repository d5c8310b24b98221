'use strict'

// The commands that run an HTTP server: `xpm web` (the dashboard) and `xpm serve` (PM2's static
// file server). Their actions load lazily (commands/web.js, commands/serve.js).
function addHttpCommands (program, { act, lazy }) {
  program.command('web')
    .description('live dashboard in the browser: processes, charts, logs, restart journal and actions (docs/web.md)')
    .option('--port <n>', 'port to listen on (0: any free port)', '9615')
    .option('--host <address>', 'address to listen on (default 127.0.0.1; anything but loopback is reachable from other machines); user@host[:port]: a host to show over ssh (repeatable)', (value, list) => [...list, value], [])
    .option('--hosts <group>', 'show the processes of every host of the ecosystem file\'s deploy.<group> (or XPM_HOME/hosts.json), over ssh (docs/fleet.md)')
    .option('--read-only', 'refuse every action (restart, reload, stop, start)')
    .option('--allowed-host <names...>', 'extra names the page may be reached under (Host header), e.g. behind a proxy')
    .option('--public-url <url>', 'behind a reverse proxy: the address the browser uses (https://dash.example); its Origin is accepted and the printed address uses it')
    .option('--daemon', 'run it as an app of xpm (restarts on a crash, logs like any app) instead of in the foreground')
    .option('--name <name>', 'with --daemon: the app name', 'xpm-web')
    .action(act(lazy('web', 'web')))

  program.command('serve [path] [port]').alias('expose')
    .description('serve a folder over HTTP as an app (PM2\'s pm2 serve): static-page-server-<port>')
    .option('--port <port>', 'the port (default 8080)')
    .option('--host <address>', 'the address to listen on (default 0.0.0.0, as PM2)')
    .option('--spa', 'a single-page app: a path that is no file gets the file of that name at the top, else index.html')
    .option('--homepage <path>', 'the page of --spa (default /index.html)')
    .option('--basic-auth-username <name>', 'ask for this user name (HTTP basic auth)')
    .option('--basic-auth-password <password>', 'and this password')
    .option('--name <name>', 'the app name')
    .action(act(lazy('serve', 'serve')))
}

module.exports = { addHttpCommands }
