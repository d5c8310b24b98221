'use strict'

const path = require('node:path')
const picomatch = require('picomatch')

// Which changed paths a watch ignores. Pure: builds a predicate over absolute paths.
//
// Always ignored: node_modules and .git anywhere, XPM_HOME, log files (*.log, *.log.1, *.log.gz,
// and the app's configured log files with their rotated copies), editor scratch files (*.swp,
// *~, vim's 4913, emacs' .#lock).
// ignore_watch patterns:
//   - no slash ("tmp", "*.csv"): matches any path segment;
//   - with a slash ("public/uploads", "src/**/*.gen.js"): matched against the path relative
//     to the app's cwd, or any of its parent folders;
//   - absolute ("/srv/data"): that path and everything under it.
// Globs as PM2's watcher (chokidar) reads them, through picomatch: `*` and `?` within a segment,
// `**` across segments, braces (`*.{csv,tsv}`), classes (`logs/[0-9]*.txt`), extglobs, and a
// backslash escapes (`\\.git` in a JSON file is `.git`). Dot files match like any other.
const DEFAULT_SEGMENTS = [/^node_modules$/, /^\.git$/, /\.log(\.\d+)?(\.gz)?$/, /\.sw[px]$/, /~$/, /^4913$/, /^\.#/].map((re) => (s) => re.test(s))

function createIgnore ({ cwd, home = null, patterns = [], logFiles = [] }) {
  const segment = [...DEFAULT_SEGMENTS]
  const relative = []
  const absolute = []
  for (const raw of patterns) {
    const p = String(raw).trim().replace(/^\.\/+/, '').replace(/\/+$/, '')
    if (!p) continue
    if (path.isAbsolute(p)) absolute.push(globMatcher(p))
    else if (p.includes('/')) relative.push(globMatcher(p))
    else segment.push(globMatcher(p))
  }
  const under = [home, ...logFiles].filter(Boolean).map((p) => path.resolve(p))

  return function ignored (file) {
    file = path.resolve(file)
    // A configured log file and its rotated siblings (out.log.1, out.log.gz) share its prefix.
    if (under.some((p) => file === p || file.startsWith(p + path.sep) || file.startsWith(p + '.'))) return true
    const rel = path.relative(cwd, file)
    const inside = rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)
    const parts = (inside ? rel : file).split(path.sep).filter(Boolean)
    if (parts.some((part) => segment.some((m) => m(part)))) return true
    if (inside && prefixes(parts).some((prefix) => relative.some((m) => m(prefix)))) return true
    const absParts = file.split(path.sep).filter(Boolean)
    return prefixes(absParts).some((prefix) => absolute.some((m) => m('/' + prefix)))
  }
}

// 'a/b/c' → ['a', 'a/b', 'a/b/c']
function prefixes (parts) {
  const out = []
  for (let i = 1; i <= parts.length; i++) out.push(parts.slice(0, i).join('/'))
  return out
}

// A predicate over one path (or segment) for one glob.
function globMatcher (glob) {
  return picomatch(glob, { dot: true })
}

module.exports = { createIgnore, globMatcher, DEFAULT_SEGMENTS }
