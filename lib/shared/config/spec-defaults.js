'use strict'

const { OPTIONS } = require('./options')

// The default of every top-level field of the normalized spec, from the option table: the one
// place a default lives. The daemon fills them into every spec it takes (validate-spec.js); code
// that handles a spec which may lack a field (a unit test's, a saved state read before the check)
// falls back on these, never on a literal of its own.
const SPEC_DEFAULTS = Object.freeze(Object.fromEntries(OPTIONS
  .filter((o) => o.target && !o.target.includes('.') && !o.pattern && !o.into && o.default !== undefined)
  .map((o) => [o.target, o.default])))

module.exports = { SPEC_DEFAULTS }
