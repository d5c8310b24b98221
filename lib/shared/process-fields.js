'use strict'

// Replies that carry only what a command shows. `list`, `show` and `subscribe` take an optional
// `fields` param: the row keys to keep, a dotted key keeping one key of an object-valued field
// (`metrics.heapUsed`, `spec.script`). Without it a reply holds every field, as before. Shared by
// the CLI (which asks) and the daemon (which projects); pure.
const MAX_FIELDS = 64
const FIELD = /^[A-Za-z][A-Za-z0-9]{0,63}(\.[A-Za-z][A-Za-z0-9]{0,63})?$/

function isFieldList (value) {
  return Array.isArray(value) && value.length > 0 && value.length <= MAX_FIELDS && value.every((f) => typeof f === 'string' && FIELD.test(f))
}

// fields → a projector: row → a new object with only those fields (absent ones left out).
function projector (fields) {
  const top = []
  const nested = new Map()
  for (const field of fields) {
    const dot = field.indexOf('.')
    if (dot === -1) top.push(field)
    else {
      const key = field.slice(0, dot)
      if (!nested.has(key)) nested.set(key, [])
      nested.get(key).push(field.slice(dot + 1))
    }
  }
  for (const key of top) nested.delete(key) // the whole field wins over some of its keys
  return (row) => {
    const out = {}
    for (const key of top) if (row[key] !== undefined) out[key] = row[key]
    for (const [key, keys] of nested) {
      const value = row[key]
      if (value === undefined) continue
      if (value === null || typeof value !== 'object') {
        out[key] = value
        continue
      }
      const part = {}
      for (const k of keys) if (value[k] !== undefined) part[k] = value[k]
      out[key] = part
    }
    return out
  }
}

// Whether a projection keeps `field` (or any key of it).
function wants (fields, field) {
  return !fields || fields.some((f) => f === field || f.startsWith(field + '.'))
}

module.exports = { isFieldList, projector, wants, MAX_FIELDS }
