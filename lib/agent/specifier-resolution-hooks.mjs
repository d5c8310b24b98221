// The resolve hook of specifier-resolution.js: a relative or absolute specifier that Node cannot
// find as written is tried with the extensions and index files require() tries, in its order.
const TRIES = ['.mjs', '.js', '.cjs', '.json', '/index.mjs', '/index.js', '/index.cjs', '/index.json']
const NOT_FOUND = new Set(['ERR_MODULE_NOT_FOUND', 'ERR_UNSUPPORTED_DIR_IMPORT'])

export async function resolve (specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context)
  } catch (err) {
    if (!NOT_FOUND.has(err.code) || !/^(\.{1,2}\/|\/|file:)/.test(specifier) || /\.[cm]?js$|\.json$/.test(specifier)) throw err
    for (const end of TRIES) {
      try {
        return await nextResolve(specifier.replace(/\/$/, '') + end, context)
      } catch (again) {
        if (!NOT_FOUND.has(again.code)) throw again
      }
    }
    throw err
  }
}
