'use strict'

const fs = require('node:fs')
const fsp = require('node:fs/promises')
const path = require('node:path')

// Watches folders recursively with one fs.watch per directory, walking the tree asynchronously
// and never entering ignored folders. (fs.watch's own `recursive` mode on Linux walks the whole
// tree synchronously and watches node_modules too.) A root may also be a single file: its
// folder is watched and only that name reported.
//
// onChange(absPath) for every change not ignored; ready resolves once the initial walk is done.
// (Over 80 lines because it is six small named functions around the two maps they share.)
function watchTree (roots, { ignored = () => false, onChange, onError = () => {} }) {
  const watchers = new Map() // dir → FSWatcher
  const onlyNames = new Map() // dir → Set of file names, for file roots
  let closed = false

  function watchDir (dir, names = null) {
    if (names) {
      if (!onlyNames.has(dir)) onlyNames.set(dir, new Set())
      for (const n of names) onlyNames.get(dir).add(n)
    } else {
      onlyNames.delete(dir)
    }
    if (watchers.has(dir)) return true
    let watcher
    try {
      watcher = fs.watch(dir, { persistent: false }, (type, name) => onEvent(dir, type, name))
    } catch (err) {
      if (err.code !== 'ENOENT' && err.code !== 'ENOTDIR') onError(err)
      return false
    }
    watcher.on('error', () => forget(dir))
    watchers.set(dir, watcher)
    return true
  }

  async function addTree (dir) {
    if (closed || watchers.has(dir) || ignored(dir)) return
    if (!watchDir(dir)) return
    let entries
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true })
    } catch {
      return
    }
    if (closed) return
    await Promise.all(entries.filter((e) => e.isDirectory()).map((e) => addTree(path.join(dir, e.name))))
  }

  function forget (dir) {
    for (const [d, w] of watchers) {
      if (d === dir || d.startsWith(dir + path.sep)) {
        w.close()
        watchers.delete(d)
      }
    }
  }

  function onEvent (dir, type, name) {
    if (closed || !name) return
    const only = onlyNames.get(dir)
    if (only && !only.has(String(name))) return
    const file = path.join(dir, String(name))
    if (ignored(file)) return
    if (type === 'rename' && !only) {
      // A new folder is watched too; a removed one is forgotten.
      fsp.stat(file).then((st) => {
        if (st.isDirectory() && !watchers.has(file)) return addTree(file)
      }, () => forget(file)).catch(onError)
    } else if (type === 'change' && watchers.has(file)) {
      return // a folder's own metadata; the file inside it reports itself
    }
    onChange(file)
  }

  async function addRoot (root) {
    let st
    try {
      st = await fsp.stat(root)
    } catch (err) {
      onError(new Error(`cannot watch ${root}: ${err.code || err.message}`))
      return
    }
    if (closed) return
    if (st.isDirectory()) await addTree(root)
    else watchDir(path.dirname(root), [path.basename(root)])
  }

  const ready = Promise.all(roots.map(addRoot)).then(() => watchers.size)

  function close () {
    closed = true
    for (const w of watchers.values()) w.close()
    watchers.clear()
  }

  return { ready, close, get size () { return watchers.size } }
}

module.exports = { watchTree }
