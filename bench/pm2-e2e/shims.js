'use strict'

// The bin/ folder each contender's copy of PM2's test tree gets: PM2's e2e scripts run
// `$(pwd)/bin/pm2`, `bin/pm2-runtime` and `bin/pm2-dev`. For PM2 they start PM2's own binaries;
// for xpm they map the name only (pm2 → bin/xpm, pm2-runtime → bin/xpm-runtime, pm2-dev →
// `xpm-runtime --watch`, PM2's foreground watcher) and the home folder (XPM_HOME is the folder
// PM2's would be, and the daemon's pid file is PM2's pm2.pid in it, so `~/.pm2/logs/…` and
// `cat ~/.pm2/pm2.pid` in a script name xpm's files), and print `prettylist` and `jlist` in
// PM2's shape (`--pm2`, then util.inspect as `pm2 prettylist` prints it).
const fs = require('node:fs')
const path = require('node:path')

const XPM_ROOT = path.join(__dirname, '..', '..')

function sh (lines) { return '#!/usr/bin/env bash\n' + lines.join('\n') + '\n' }

function pm2Shims (pm2Package) {
  const bin = (name) => sh([`exec node ${JSON.stringify(path.join(pm2Package, 'bin', name))} "$@"`])
  return { pm2: bin('pm2'), 'pm2-runtime': bin('pm2-runtime'), 'pm2-dev': bin('pm2-dev') }
}

function xpmShims (node = process.execPath) {
  const xpm = JSON.stringify(path.join(XPM_ROOT, 'bin', 'xpm'))
  const runtime = JSON.stringify(path.join(XPM_ROOT, 'bin', 'xpm-runtime'))
  const home = 'export XPM_HOME="$' + '{XPM_HOME:-$' + '{PM2_HOME:-$HOME/.pm2}}"' + // the shell's default values
    '; export PM2_PID_FILE_PATH="$' + '{PM2_PID_FILE_PATH:-$XPM_HOME/pm2.pid}"'
  const inspect = `${JSON.stringify(node)} -e 'let s="";process.stdin.on("data",(d)=>{s+=d}).on("end",()=>{process.stdout.write(require("util").inspect(JSON.parse(s),false,null,false))})'`
  return {
    pm2: sh([
      home,
      'case "$1" in',
      `  prettylist) shift; set -o pipefail; ${JSON.stringify(node)} ${xpm} jlist --pm2 "$@" | ${inspect}; exit $? ;;`,
      `  jlist) shift; exec ${JSON.stringify(node)} ${xpm} jlist --pm2 "$@" ;;`,
      'esac',
      `exec ${JSON.stringify(node)} ${xpm} "$@"`
    ]),
    'pm2-runtime': sh([home, `exec ${runtime} "$@"`]),
    'pm2-dev': sh([home, `exec ${runtime} --watch "$@"`])
  }
}

function writeShims (binDir, shims) {
  fs.mkdirSync(binDir, { recursive: true })
  for (const [name, text] of Object.entries(shims)) fs.writeFileSync(path.join(binDir, name), text, { mode: 0o755 })
}

module.exports = { pm2Shims, xpmShims, writeShims, XPM_ROOT }
