'use strict'

// The shape of the code, checked from the source: the relative `require`s of lib/, bin/ and
// daemon/ (lazy ones inside functions too) form a graph in which every edge resolves to a file,
// the CLI side never reaches daemon/ (the daemon is another process; only bin/xpm-runtime,
// which runs the daemon in the foreground, loads it), and there is no cycle. lib/ is split by
// who runs it: lib/cli (the CLI only), lib/shared (the daemon, and often the CLI too), lib/agent
// (preloaded into every worker); the daemon never loads CLI code, shared code loads neither
// side, and the agent loads nothing but itself and Node's own modules.
// A regex over the source rather than a dependency-graph package: dpdm and madge bring a
// TypeScript or a parser stack for what is, in a CommonJS code base, one pattern.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.join(__dirname, '..', '..')
const REQUIRE = /\brequire\(\s*(['"])(\.{1,2}(?:\/[^'"]*)?)\1\s*\)/g
// require(`./commands/${file}`): an edge to every file of that folder the pattern can name
const REQUIRE_TEMPLATE = /\brequire\(\s*`(\.{1,2}\/(?:[^`$]*\/)?)([^`$/]*)\$\{[^}]*\}([^`$/]*)`\s*\)/g

function sourceFiles () {
  const files = ['bin/xpm', 'bin/xpm-runtime']
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`
      if (entry.isDirectory()) walk(rel)
      else if (entry.name.endsWith('.js')) files.push(rel)
    }
  }
  walk('lib')
  walk('daemon')
  return files.sort()
}

// Node's resolution for a relative path: the file, then .js/.json, then a folder's index.js.
function resolve (from, spec) {
  const base = path.join(path.dirname(path.join(ROOT, from)), spec)
  for (const candidate of [base, base + '.js', base + '.json', path.join(base, 'index.js')]) {
    if (fs.statSync(candidate, { throwIfNoEntry: false })?.isFile()) return path.relative(ROOT, candidate).split(path.sep).join('/')
  }
  return null
}

// file → [{ spec, to }], comment lines left out so prose that quotes a require is no edge.
function buildGraph () {
  const graph = new Map()
  for (const file of sourceFiles()) {
    const code = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line)).join('\n')
    const edges = []
    for (const [, , spec] of code.matchAll(REQUIRE)) edges.push({ spec, to: resolve(file, spec) })
    for (const [spec, dir, prefix, suffix] of code.matchAll(REQUIRE_TEMPLATE)) {
      const folder = path.join(path.dirname(path.join(ROOT, file)), dir)
      for (const name of fs.readdirSync(folder).filter((n) => n.startsWith(prefix) && n.endsWith(suffix + '.js'))) {
        edges.push({ spec, to: resolve(file, dir + name) })
      }
    }
    graph.set(file, edges)
  }
  return graph
}

// Every cycle found by a depth-first search, each as a path that ends where it starts.
function findCycles (graph) {
  const state = new Map() // file → 'open' while on the stack, 'done' after
  const stack = []
  const cycles = []
  const visit = (file) => {
    state.set(file, 'open')
    stack.push(file)
    for (const { to } of graph.get(file) || []) {
      if (!to || !graph.has(to)) continue
      if (state.get(to) === 'open') cycles.push([...stack.slice(stack.indexOf(to)), to])
      else if (!state.has(to)) visit(to)
    }
    stack.pop()
    state.set(file, 'done')
  }
  for (const file of graph.keys()) if (!state.has(file)) visit(file)
  return cycles
}

const graph = buildGraph()

test('the walker sees every source file and lazy requires inside functions', () => {
  assert.ok(graph.size > 50, `only ${graph.size} files`)
  const targets = (file) => graph.get(file).map((e) => e.to)
  assert.ok(targets('lib/cli/commands/update.js').includes('lib/shared/state/state-format.js'), 'a require inside a function')
  assert.ok(targets('bin/xpm-runtime').includes('daemon/runtime/index.js'), 'a bin file without extension')
  assert.ok(targets('lib/agent/agent.js').includes('lib/agent/options.js'), 'the agent')
  assert.ok(targets('lib/cli/main.js').includes('lib/cli/commands/list.js'), 'a require of a template literal')
})

test('every relative require resolves to a file', () => {
  const broken = []
  for (const [file, edges] of graph) for (const e of edges) if (!e.to) broken.push(`${file}: require('${e.spec}')`)
  assert.deepEqual(broken, [], `unresolved requires:\n  ${broken.join('\n  ')}`)
})

test('nothing under lib/ nor bin/xpm requires daemon/ (only bin/xpm-runtime may)', () => {
  // A path from the CLI into daemon/ has a first step that leaves lib/, so direct edges suffice.
  const offending = []
  for (const [file, edges] of graph) {
    if (!file.startsWith('lib/') && file !== 'bin/xpm') continue
    for (const e of edges) if (e.to?.startsWith('daemon/')) offending.push(`${file} → ${e.to}`)
  }
  assert.deepEqual(offending, [], `the CLI reaches into daemon/ (move shared code to lib/):\n  ${offending.join('\n  ')}`)
})

// file → its edges that reach `forbidden(to)`, as 'file → to'.
function edgesWhere (fromHere, forbidden) {
  const offending = []
  for (const [file, edges] of graph) {
    if (!fromHere(file)) continue
    for (const e of edges) if (e.to && forbidden(e.to)) offending.push(`${file} → ${e.to}`)
  }
  return offending
}

test('daemon/ never requires lib/cli/ (the command line is the CLI\'s, even xpm-runtime\'s: lib/cli/runtime)', () => {
  const offending = edgesWhere((f) => f.startsWith('daemon/'), (to) => to.startsWith('lib/cli/'))
  assert.deepEqual(offending, [], `the daemon loads CLI code (move the shared part to lib/shared/):\n  ${offending.join('\n  ')}`)
})

test('lib/shared/ requires neither lib/cli/ nor daemon/ nor lib/agent/', () => {
  const offending = edgesWhere((f) => f.startsWith('lib/shared/'), (to) => !to.startsWith('lib/shared/') && to !== 'package.json')
  assert.deepEqual(offending, [], `shared code reaches into one side:\n  ${offending.join('\n  ')}`)
})

test('lib/agent/ (preloaded into every worker) requires only lib/agent/ and Node\'s own modules', () => {
  const offending = edgesWhere((f) => f.startsWith('lib/agent/'), (to) => !to.startsWith('lib/agent/'))
  for (const file of graph.keys()) {
    if (!file.startsWith('lib/agent/')) continue
    const code = fs.readFileSync(path.join(ROOT, file), 'utf8')
    for (const [, spec] of code.matchAll(/\brequire\(\s*['"]([^'".][^'"]*)['"]\s*\)/g)) if (!spec.startsWith('node:')) offending.push(`${file} → ${spec} (a package, loaded into every app)`)
  }
  assert.deepEqual(offending, [], `the agent loads more than itself:\n  ${offending.join('\n  ')}`)
})

test('lib/ holds only lib/cli/, lib/shared/, lib/agent/ and lib/otel/', () => {
  const elsewhere = [...graph.keys()].filter((f) => f.startsWith('lib/') && !/^lib\/(cli|shared|agent|otel)\//.test(f))
  assert.deepEqual(elsewhere, [], `put each file under the side that runs it:\n  ${elsewhere.join('\n  ')}`)
})

// OpenTelemetry costs only the apps and daemons that ask for it (docs/otel.md): its packages are
// loaded by lib/otel/ (preloaded into apps with otel on) and daemon/otel/ only, lib/otel/ loads
// nothing of xpm's but itself, and daemon/otel/ is reached from daemon/otel-switch.js alone,
// inside a function (the first app with otel on), never at the daemon's start.
test('@opentelemetry packages are loaded by lib/otel/ and daemon/otel/ only, and daemon/otel/ lazily by daemon/otel-switch.js', () => {
  const offending = []
  for (const file of graph.keys()) {
    const code = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line)).join('\n')
    if (/require\(\s*['"]@opentelemetry\//.test(code) && !/^(lib|daemon)\/otel\//.test(file)) offending.push(`${file} loads @opentelemetry`)
  }
  offending.push(...edgesWhere((f) => f.startsWith('lib/otel/'), (to) => !to.startsWith('lib/otel/')))
  offending.push(...edgesWhere((f) => !f.startsWith('daemon/otel/') && f !== 'daemon/otel-switch.js', (to) => to.startsWith('daemon/otel/')))
  const lines = fs.readFileSync(path.join(ROOT, 'daemon/otel-switch.js'), 'utf8').split('\n')
  for (const line of lines) if (/require\('\.\/otel'\)/.test(line) && !/^\s{4,}/.test(line)) offending.push(`daemon/otel-switch.js loads daemon/otel/ at the top level: ${line.trim()}`)
  assert.deepEqual(offending, [], `OpenTelemetry loaded where it should not be:\n  ${offending.join('\n  ')}`)
})

test('the relative-require graph has no cycle', () => {
  const cycles = findCycles(graph)
  assert.deepEqual(cycles, [], `import cycles:\n  ${cycles.map((c) => c.join(' → ')).join('\n  ')}`)
})

test('the web dashboard (lib/cli/web/) is loaded by `xpm web` only, and its page (lib/cli/web/public/) by the browser only', () => {
  const offending = []
  for (const [file, edges] of graph) {
    for (const e of edges) {
      if (e.to?.startsWith('lib/cli/web/public/')) offending.push(`${file} → ${e.to} (browser code)`)
      else if (e.to?.startsWith('lib/cli/web/') && !file.startsWith('lib/cli/web/') && file !== 'lib/cli/commands/web.js') offending.push(`${file} → ${e.to}`)
    }
  }
  assert.deepEqual(offending, [], `only lib/cli/commands/web.js may load the web server:\n  ${offending.join('\n  ')}`)
})

test('daemon/model imports nothing from policies, health, hooks, journal, persistence, prometheus (observers depend on the model, never the reverse)', () => {
  const observers = ['policies', 'health', 'hooks', 'journal', 'persistence', 'prometheus'].map((d) => `daemon/${d}/`)
  const offending = []
  for (const [file, edges] of graph) {
    if (!file.startsWith('daemon/model/')) continue
    for (const e of edges) if (observers.some((o) => e.to?.startsWith(o))) offending.push(`${file} → ${e.to}`)
  }
  assert.deepEqual(offending, [], `the model reaches into an observer (move the pure part into daemon/model/):\n  ${offending.join('\n  ')}`)
})

test('no file under daemon/ or lib/ is over 300 lines, unless its first lines say "over 300 lines because"', () => {
  const offending = []
  for (const file of graph.keys()) {
    if (!file.startsWith('daemon/') && !file.startsWith('lib/')) continue
    const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n')
    const count = lines.length - (lines.at(-1) === '' ? 1 : 0)
    if (count <= 300) continue
    if (lines.slice(0, 10).some((l) => l.startsWith('//') && l.includes('over 300 lines because'))) continue
    offending.push(`${file}: ${count} lines`)
  }
  assert.deepEqual(offending, [], `split these, or say why in a comment near the top ("over 300 lines because …"):\n  ${offending.join('\n  ')}`)
})
