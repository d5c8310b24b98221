'use strict'

const { XpmError } = require('../../shared/errors')

// `xpm apply <file> [--dry-run] [--prune] [--env NAME] [--only a,b] [--json]`: make the daemon
// run what the file says. The plan (lib/cli/apply/plan.js) is printed first, then carried out:
// pruned apps are deleted (dependents first), then the starts (one request: the daemon orders
// them by depends_on), restarts, reloads and scales run at once. --dry-run prints the plan only
// and exits 0 when nothing would change, 3 when something would. A second apply of the same
// file does nothing.
const DRY_RUN_CHANGES = 3

async function apply (ctx, { file, options: opts }) {
  const { isEcosystemFile, resolveTargets } = require('../../shared/config')
  if (!isEcosystemFile(file)) {
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', `xpm apply needs an ecosystem file (ecosystem.config.js, *.config.{js,cjs,mjs,ts}, .json), got "${file}"`)
  }
  const env = { ...ctx.io.env }
  const resolved = await resolveTargets({ target: file, cwd: ctx.io.cwd(), only: opts.only, envName: opts.env, env, withSpecs: true })
  const all = opts.only ? await resolveTargets({ target: file, cwd: ctx.io.cwd(), env, envName: opts.env, withSpecs: false }) : resolved
  if (!opts.json) for (const line of resolved.notices ?? []) ctx.io.stderr.write(`[xpm] notice: ${line}\n`)
  const client = await connect(ctx, { dryRun: opts.dryRun })
  const running = client ? await runningApps(client) : []
  const { planApply, deleteOrder } = require('../apply/plan')
  const plan = planApply({ desired: resolved.specs, fileNames: all.names, running, prune: opts.prune === true, cliEnv: env })

  if (opts.json && opts.dryRun) ctx.io.printJson({ file: resolved.file, dryRun: true, ...plan })
  else if (!opts.json) ctx.io.stdout.write(renderPlan(resolved.file, plan, { dryRun: opts.dryRun, ...ctx.io.tableOptions() }))
  if (opts.dryRun) return plan.changes ? DRY_RUN_CHANGES : 0
  if (!plan.changes) {
    if (opts.json) ctx.io.printJson({ file: resolved.file, ...plan, results: [] })
    return 0
  }

  const specOf = (name) => resolved.specs.find((s) => s.name === name)
  const of = (kind) => plan.actions.filter((a) => a.action === kind)
  const { longRequest, progressPrinter, printStillWorking, StillWorking } = require('../long-request')
  const onProgress = progressPrinter({ json: opts.json, stream: ctx.io.stdout })
  const results = []
  const failures = []
  const note = (action, name, result, failure = null) => {
    results.push({ action, name, result })
    if (failure) failures.push({ action, name, ...failure })
  }
  const fromStart = (action) => (rs) => {
    for (const r of rs) note(action, r.name, r, r.failures?.length ? { code: r.failures[0].code, message: r.failures[0].message } : null)
  }
  try {
    for (const name of deleteOrder(plan.actions, running)) {
      note('delete', name, await longRequest(client, 'delete', { target: name }, { onProgress }))
    }
    const { describeStep } = require('./lifecycle')
    client.on('event', ({ event, data }) => {
      if (event !== 'reload.step' || opts.json) return
      const line = describeStep(data)
      if (line) ctx.io.stdout.write(line + '\n')
    })
    const tasks = []
    const starts = of('start').map((a) => specOf(a.name))
    if (starts.length) tasks.push(longRequest(client, 'start', { specs: starts, force: false }, { onProgress }).then(fromStart('start')))
    const restarts = of('restart').map((a) => specOf(a.name))
    if (restarts.length) tasks.push(longRequest(client, 'start', { specs: restarts, force: true }, { onProgress }).then(fromStart('restart')))
    for (const a of of('reload')) {
      tasks.push(client.request('reload', { target: a.name, specs: [specOf(a.name)] }, { timeout: 10 * 60 * 1000 }).then(
        (r) => note('reload', a.name, r),
        (err) => note('reload', a.name, null, { code: err.code, message: err.message })))
    }
    for (const a of of('scale')) {
      tasks.push(client.request('scale', { target: a.name, change: String(a.to) }, { timeout: 120000 }).then(
        (r) => note('scale', a.name, r, r.failures?.length ? { code: 'XPM_ERR_START_FAILED', message: r.failures[0].message } : null),
        (err) => note('scale', a.name, null, { code: err.code, message: err.message })))
    }
    await Promise.all(tasks)
  } catch (err) {
    if (!(err instanceof StillWorking)) throw err
    printStillWorking(plan.actions.filter((a) => a.action !== 'unchanged' && a.action !== 'keep').map((a) => a.name), err, ctx.io.stderr)
    return
  }
  if (opts.json) ctx.io.printJson({ file: resolved.file, ...plan, results, failures })
  else {
    ctx.io.stdout.write(`[xpm] applied ${resolved.file}${failures.length ? ` with ${failures.length} failure${failures.length === 1 ? '' : 's'}` : ''}\n`)
    const { renderList } = require('../render-list')
    ctx.io.stdout.write(renderList(await client.request('list'), ctx.io.tableOptions()))
  }
  if (failures.length) {
    const [first] = failures
    const code = ['XPM_ERR_DEPENDENCY_FAILED', 'XPM_ERR_RELOAD_FAILED', 'XPM_ERR_CANCELLED'].includes(first.code) ? first.code : 'XPM_ERR_START_FAILED'
    throw new XpmError(code, `${first.action} of ${first.name} failed: ${first.message}`, { details: failures })
  }
}

// --dry-run never starts a daemon: none running means every app of the file would start.
async function connect (ctx, { dryRun }) {
  if (!dryRun) return ctx.connect()
  try {
    ctx.client = await ctx.io.connect({ autoStart: false })
    return ctx.client
  } catch (err) {
    if (err.code === 'XPM_ERR_DAEMON_UNREACHABLE') return null
    throw err
  }
}

// The apps the daemon manages: name, spec, and each instance's status and last exit.
async function runningApps (client) {
  let rows
  try {
    rows = await client.request('show', { target: 'all', fields: ['name', 'status', 'lastExit', 'spec'] })
  } catch (err) {
    if (err.code === 'XPM_ERR_APP_NOT_FOUND') return [] // nothing is managed
    throw err
  }
  const apps = new Map()
  for (const row of rows) {
    if (!apps.has(row.name)) apps.set(row.name, { name: row.name, spec: row.spec, instances: [] })
    apps.get(row.name).instances.push({ status: row.status, lastExit: row.lastExit })
  }
  return [...apps.values()]
}

const VERB = { start: 'start', reload: 'reload', scale: 'scale', restart: 'restart', delete: 'delete', unchanged: 'leave alone', keep: 'leave alone' }

// The plan as a table (action, app, why), between a title and a summary line.
function renderPlan (file, plan, { dryRun = false, ...options } = {}) {
  const { renderTable } = require('../table')
  const title = `[xpm] ${dryRun ? 'plan (dry run, nothing is changed)' : 'plan'} for ${file}:\n`
  const rows = plan.actions.map((a) => {
    const why = [a.changes.length ? `changed: ${a.changes.join(', ')}` : null, a.reason].filter(Boolean).join('; ')
    return [VERB[a.action], a.name, why]
  })
  const counts = {}
  for (const a of plan.actions) counts[VERB[a.action]] = (counts[VERB[a.action]] || 0) + 1
  const summary = Object.entries(counts).map(([verb, n]) => `${n} to ${verb}`).join(', ')
  const table = rows.length ? renderTable(rows, { head: ['action', 'app', 'why'], flex: 2, ...options }) : ''
  return `${title}${table}[xpm] ${plan.changes ? summary : `nothing to change (${summary || 'no apps'})`}\n`
}

module.exports = { apply, renderPlan, runningApps, DRY_RUN_CHANGES }
