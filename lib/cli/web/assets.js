'use strict'

// The page's files, all from the package (no CDN: the page works with no internet). uPlot comes
// from its npm package through require.resolve. Read once at start-up, kept in memory (a few
// hundred KB), so serving them does no file I/O.

const fs = require('node:fs')
const path = require('node:path')

const PUBLIC = path.join(__dirname, 'public')
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.png': 'image/png', '.svg': 'image/svg+xml' }

function loadAssets () {
  const files = {
    '/index.html': path.join(PUBLIC, 'index.html'),
    '/app.js': path.join(PUBLIC, 'app.js'),
    '/auth.js': path.join(PUBLIC, 'auth.js'),
    '/table.js': path.join(PUBLIC, 'table.js'),
    '/rich-text.js': path.join(PUBLIC, 'rich-text.js'),
    '/columns.js': path.join(PUBLIC, 'columns.js'),
    '/journal.js': path.join(PUBLIC, 'journal.js'),
    '/shown.js': path.join(PUBLIC, 'shown.js'),
    '/charts.js': path.join(PUBLIC, 'charts.js'),
    '/log-panel.js': path.join(PUBLIC, 'log-panel.js'),
    '/style.css': path.join(PUBLIC, 'style.css'),
    '/favicon.svg': path.join(PUBLIC, 'favicon.svg'),
    '/vendor/uPlot.iife.min.js': require.resolve('uplot/dist/uPlot.iife.min.js'),
    '/vendor/uPlot.min.css': require.resolve('uplot/dist/uPlot.min.css')
  }
  const assets = new Map()
  for (const [url, file] of Object.entries(files)) {
    assets.set(url, { type: TYPES[path.extname(file)] || 'application/octet-stream', body: fs.readFileSync(file) })
  }
  // the CLI's formatters (52.0 MB, 1.23 ms, 3m) as the page's: one style everywhere
  const quantity = fs.readFileSync(require.resolve('../../shared/quantity'), 'utf8')
  assets.set('/quantity.js', {
    type: TYPES['.js'],
    body: Buffer.from(`(function () {\nconst module = { exports: {} }\n${quantity}\nwindow.xpmQuantity = module.exports\n})()\n`)
  })
  return assets
}

module.exports = { loadAssets }
