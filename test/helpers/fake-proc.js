'use strict'

// A fake /proc for the tag scan (lib/shared/tag-scan.js): a folder of <pid>/stat and <pid>/environ
// files, removed after the test. No process is started or signalled.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { createTagScanner } = require('../../lib/shared/tag-scan')
const { TREE_VAR, LAUNCH_VAR, treeTag } = require('../../lib/shared/tree-tag')

// procs: pid → { startTime, environ, ppid }. remove(pid): the process has ended.
function fakeProc (t, procs) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-fake-proc-'))
  t.after(() => fs.rmSync(root, { recursive: true, force: true }))
  const put = (pid, { startTime, environ = '', ppid = 1 }) => {
    fs.mkdirSync(path.join(root, String(pid)), { recursive: true })
    fs.writeFileSync(path.join(root, String(pid), 'stat'), `${pid} (x y) S ${ppid} ${pid} ${pid} 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 ${startTime} 0 0`)
    fs.writeFileSync(path.join(root, String(pid), 'environ'), environ)
  }
  for (const [pid, p] of Object.entries(procs)) put(pid, p)
  const remove = (pid) => fs.rmSync(path.join(root, String(pid)), { recursive: true, force: true })
  return { root, put, remove, scanner: createTagScanner({ procRoot: root }) }
}

// The environment of a process tagged for home, app, instance and launch.
const env = (home, app, index, launch) => `PATH=/bin\0${TREE_VAR}=${treeTag(home, app, index)}\0${LAUNCH_VAR}=${launch}\0`

module.exports = { fakeProc, env }
