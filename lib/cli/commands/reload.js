'use strict'

const { renderList } = require('../render-list')

// Submits the reload job to the daemon and prints its steps as they happen. The daemon runs
// the job to the end even when this process is killed.
async function reload (ctx) {
  const [target, opts] = ctx.args
  const { resolveTargets } = require('../../config')
  const resolved = await resolveTargets({ target, cwd: process.cwd(), only: opts.only, envName: opts.env, env: process.env })
  const client = await ctx.connect()
  const targets = resolved.kind === 'ecosystem' ? resolved.names : [target]
  let specs = resolved.kind === 'ecosystem' ? resolved.specs : null
  if (opts.updateEnv) {
    specs = []
    for (const name of targets) {
      const details = await client.request('show', { target: name })
      for (const d of details) {
        if (specs.some((s) => s.name === d.spec.name)) continue
        const fromFile = resolved.specs?.find((s) => s.name === d.spec.name)
        specs.push({ ...(fromFile || d.spec), env: { ...(fromFile?.env || {}), ...process.env } })
      }
    }
  }
  client.on('event', ({ event, data }) => {
    if (event !== 'reload.step') return
    if (opts.json) process.stdout.write(JSON.stringify(data) + '\n')
    else { const line = describeStep(data); if (line) process.stdout.write(line + '\n') }
  })
  let failure = null
  for (const name of targets) {
    try {
      await client.request('reload', { target: name, specs }, { timeout: 10 * 60 * 1000 })
    } catch (err) {
      failure = failure || err
    }
  }
  if (!opts.json) process.stdout.write(renderList(await client.request('list')))
  if (failure) throw failure
}

function describeStep (s) {
  const who = s.instance === undefined ? s.app : `${s.app}[${s.instance}]`
  switch (s.type) {
    case 'begin': return `[xpm] reloading ${s.app} (${s.instances.length} instance${s.instances.length === 1 ? '' : 's'}, ${s.mode} mode)`
    case 'fork': return `[xpm] ${who}: new worker pid ${s.newPid} starting (old pid ${s.oldPid} keeps serving)`
    case 'ready': return `[xpm] ${who}: new pid ${s.newPid} ready`
    case 'stopped': return `[xpm] ${who}: old pid ${s.oldPid} stopped`
    case 'skip': return `[xpm] ${who}: ${s.reason}`
    case 'restart': return `[xpm] ${who}: ${s.reason}`
    case 'restarted': return `[xpm] ${who}: restarted, pid ${s.pid}`
    case 'failed': return `[xpm] ${who}: FAILED – ${s.reason}`
    case 'end': return s.ok ? `[xpm] ${s.app}: reload done` : `[xpm] ${s.app}: reload stopped; the old workers keep serving`
    default: return null
  }
}

module.exports = { reload, describeStep }
