'use strict'

// An ecosystem file's text for some apps: `module.exports = { apps: [...] }` with the values as
// JSON (exact, and valid JavaScript), keys without quotes where they are plain identifiers.
function ecosystemText (apps, { header = [] } = {}) {
  const body = JSON.stringify({ apps }, null, 2).replace(/^(\s*)"([A-Za-z_$][A-Za-z0-9_$]*)":/gm, '$1$2:')
  const comments = header.map((line) => `// ${line}`.trimEnd()).join('\n')
  return `'use strict'\n\n${comments ? comments + '\n' : ''}module.exports = ${body}\n`
}

module.exports = { ecosystemText }
