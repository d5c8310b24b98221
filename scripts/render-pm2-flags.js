'use strict'

// Writes the PM2 flag table of docs/migrating-from-pm2.md from lib/cli/pm2-flags.js
// (`node scripts/render-pm2-flags.js --write`; without --write: prints it).
const fs = require('node:fs')
const path = require('node:path')
const { renderFlagTable } = require('../lib/cli/pm2-flags')

const file = path.join(__dirname, '..', 'docs', 'migrating-from-pm2.md')
const table = renderFlagTable()
if (!process.argv.includes('--write')) {
  process.stdout.write(table + '\n')
} else {
  const doc = fs.readFileSync(file, 'utf8')
  const re = /(<!-- pm2-flags:begin[^>]*-->\n)[\s\S]*?(\n<!-- pm2-flags:end -->)/
  if (!re.test(doc)) throw new Error(`${file} has no <!-- pm2-flags:begin --> … <!-- pm2-flags:end --> section`)
  fs.writeFileSync(file, doc.replace(re, (_, a, b) => a + table + b))
}
