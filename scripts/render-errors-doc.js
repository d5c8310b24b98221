'use strict'

// Rewrites the code table of docs/errors.md from lib/shared/errors.js (test/unit/errors.test.js checks it).
const fs = require('node:fs')
const path = require('node:path')
const { CODES } = require('../lib/shared/errors')

const file = path.join(__dirname, '..', 'docs', 'errors.md')
const doc = fs.readFileSync(file, 'utf8')
const table = '| code | exit | meaning |\n|---|---|---|\n' +
  Object.entries(CODES).map(([code, { exit, summary }]) => `| \`${code}\` | ${exit} | ${summary} |`).join('\n') + '\n'
fs.writeFileSync(file, doc.replace(/\| code \| exit \| meaning \|\n\|---\|---\|---\|\n(\|.*\|\n)*/, table))
