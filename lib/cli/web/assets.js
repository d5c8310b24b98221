'use strict'

// The page's files, all from the package (no CDN: the page works with no internet). The page's
// scripts are native ES modules (app.js imports the others); uPlot comes as its package's ES
// module through require.resolve, and the CLI's formatters (lib/shared/quantity.js, CommonJS) are
// served wrapped as one. index.html gets a modulepreload link for each module, so the browser
// fetches them at once instead of one import level at a time. Read once at start-up, kept in
// memory (a few hundred KB), so serving them does no file I/O.

const fs = require('node:fs')
const path = require('node:path')

const PUBLIC = path.join(__dirname, 'public')
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.png': 'image/png', '.svg': 'image/svg+xml' }
const MODULES = ['app.js', 'auth.js', 'table.js', 'rich-text.js', 'columns.js', 'journal.js', 'shown.js', 'charts.js', 'log-panel.js', 'hosts.js', 'page-actions.js']

// lib/shared/quantity.js as an ES module: its exports by name (52.0 MB, 1.23 ms, 3m: one style everywhere)
function quantityModule () {
  const quantity = require('../../shared/quantity')
  const source = fs.readFileSync(require.resolve('../../shared/quantity'), 'utf8')
  // its own scope: its functions have the names exported
  return `const module = { exports: {} }\n;(function (module) {\n${source}\n})(module)\nexport const { ${Object.keys(quantity).join(', ')} } = module.exports\n`
}

function loadAssets () {
  const files = {
    '/index.html': path.join(PUBLIC, 'index.html'),
    '/style.css': path.join(PUBLIC, 'style.css'),
    '/favicon.svg': path.join(PUBLIC, 'favicon.svg'),
    '/vendor/uPlot.esm.js': require.resolve('uplot/dist/uPlot.esm.js'),
    '/vendor/uPlot.min.css': require.resolve('uplot/dist/uPlot.min.css')
  }
  for (const name of MODULES) files[`/${name}`] = path.join(PUBLIC, name)
  const assets = new Map()
  for (const [url, file] of Object.entries(files)) {
    assets.set(url, { type: TYPES[path.extname(file)] || 'application/octet-stream', body: fs.readFileSync(file) })
  }
  assets.set('/quantity.js', { type: TYPES['.js'], body: Buffer.from(quantityModule()) })
  const modules = [...assets.keys()].filter((url) => url.endsWith('.js') && url !== '/app.js')
  const page = assets.get('/index.html')
  const preload = modules.map((url) => `<link rel="modulepreload" href="${url}">\n`).join('')
  page.body = Buffer.from(page.body.toString('utf8').replace('</head>', `${preload}</head>`))
  return assets
}

module.exports = { loadAssets, quantityModule }
