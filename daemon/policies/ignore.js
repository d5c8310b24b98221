'use strict'

const path = require('node:path')

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
// Globs: `*` and `?` within a segment, `**` across segments.
const DEFAULT_SEGMENTS = [/^node_modules$/, /^\.git$/, /\.log(\.\d+)?(\.gz)?$/, /\.sw[px]$/, /~$/, /^4913$/, /^\.#/]

function createIgnore ({ cwd, home = null, patterns = [], logFiles = [] }) {
  const segment = [...DEFAULT_SEGMENTS]
  const relative = []
  const absolute = []
  for (const raw of patterns) {
    const p = String(raw).trim().replace(/^\.\/+/, '').replace(/\/+$/, '')
    if (!p) continue
    if (path.isAbsolute(p)) absolute.push(globToRegExp(p))
    else if (p.includes('/')) relative.push(globToRegExp(p))
    else segment.push(globToRegExp(p))
  }
  const under = [home, ...logFiles].filter(Boolean).map((p) => path.resolve(p))

  return function ignored (file) {
    file = path.resolve(file)
    // A configured log file and its rotated siblings (out.log.1, out.log.gz) share its prefix.
    if (under.some((p) => file === p || file.startsWith(p + path.sep) || file.startsWith(p + '.'))) return true
    const rel = path.relative(cwd, file)
    const inside = rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)
    const parts = (inside ? rel : file).split(path.sep).filter(Boolean)
    if (parts.some((part) => segment.some((re) => re.test(part)))) return true
    if (inside && prefixes(parts).some((prefix) => relative.some((re) => re.test(prefix)))) return true
    const absParts = file.split(path.sep).filter(Boolean)
    return prefixes(absParts).some((prefix) => absolute.some((re) => re.test('/' + prefix)))
  }
}

// 'a/b/c' → ['a', 'a/b', 'a/b/c']
function prefixes (parts) {
  const out = []
  for (let i = 1; i <= parts.length; i++) out.push(parts.slice(0, i).join('/'))
  return out
}

function globToRegExp (glob) {
  let re = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]
    if (c === '*' && glob[i + 1] === '*') {
      i++
      if (glob[i + 1] === '/') {
        i++
        re += '(?:.*/)?'
      } else {
        re += '.*'
      }
    } else if (c === '*') {
      re += '[^/]*'
    } else if (c === '?') {
      re += '[^/]'
    } else {
      re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
    }
  }
  return new RegExp('^' + re + '$')
}

module.exports = { createIgnore, globToRegExp, DEFAULT_SEGMENTS }
