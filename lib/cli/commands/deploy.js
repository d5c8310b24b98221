'use strict'

const { XpmError } = require('../../shared/errors')
const config = require('../deploy/config')

// `xpm deploy [file] <env> [setup|update|revert [n]|curr[ent]|prev[ious]|list|exec|run <cmd>|
// status|ref <ref>|<ref>]`: pm2 deploy's commands on pm2 deploy's layout (docs/deploy.md).

const HELP = `
Usage: xpm deploy [file] <env> [command]

  Commands:
    setup                clone the repo on each host (path/source, path/current, path/shared)
    update               deploy the "ref" of the environment (the default)
    <ref> | ref <ref>    deploy this branch, tag or commit
    revert [n]           go back to the n-th release before the last (default 1)
    curr[ent]            the commit each host runs
    prev[ious]           the commit of each host's previous release
    list                 each host's releases, newest first
    exec|run <cmd>       run <cmd> in path/current on each host
    status               per host: the commit, when it was released and by whom, its apps

  Options:
    --dry-run            print what would run on each host; run nothing
    --parallel <n>       hosts at once (default: all for setup, exec and the queries; 1 for a release)
    --no-revert          leave a failed host on the failed release (no auto-revert)
    --no-health          do not check with \`xpm jlist\` that the file's apps are online after post-deploy
    --health-timeout <s> how long the apps have to be online after post-deploy (default 15)
    -f, --force          deploy even when this folder's git checkout has uncommitted or unpushed changes,
                         or a host's source folder has tracked files changed there (they are discarded)

  Without a file: the first of ${config.DEFAULT_FILES.join(', ')} in this folder.

  Examples:
    xpm deploy production setup
    xpm deploy ecosystem.config.js production
    xpm deploy production revert 1
    xpm deploy production exec "xpm reload all"
`

const QUERIES = { curr: 'current', current: 'current', prev: 'previous', previous: 'previous', list: 'list', status: 'status' }

// The words after <env> → { verb, ref, n, command }.
function parseVerb (words) {
  const [word, ...rest] = words
  if (word === undefined || word === 'update') return { verb: 'release' }
  if (word === 'setup') return { verb: 'setup' }
  if (word === 'revert') {
    const n = rest[0] === undefined ? 1 : Number(rest[0])
    if (!Number.isInteger(n) || n < 1) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `revert takes a number of releases (1 or more), got "${rest[0]}"`)
    return { verb: 'release', n }
  }
  if (Object.hasOwn(QUERIES, word)) return { verb: QUERIES[word] }
  if (word === 'exec' || word === 'run') {
    if (!rest.length) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `${word} needs a command: xpm deploy <env> ${word} "<cmd>"`)
    return { verb: 'exec', command: rest.join(' ') }
  }
  if (word === 'ref') {
    if (!rest[0]) throw new XpmError('XPM_ERR_BAD_ARGUMENT', 'ref needs a branch, tag or commit')
    return { verb: 'release', ref: rest[0] }
  }
  return { verb: 'release', ref: word }
}

function parseParallel (value, fallback) {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `--parallel takes a number of hosts (1 or more), got "${value}"`)
  return n
}

async function deploy (ctx, { args: words = [], options: opts = {} }) {
  const { io } = ctx
  const args = [...words]
  if (args[0] === 'help' || args.length === 0) return help(io)
  const given = config.isFileArg(args[0]) ? args.shift() : null
  const envName = args.shift()
  if (!envName) return help(io)
  const action = parseVerb(args)
  const healthTimeout = opts.healthTimeout === undefined ? 15 : Number(opts.healthTimeout)
  if (!(healthTimeout >= 0)) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `--health-timeout takes seconds, got "${opts.healthTimeout}"`)

  const cwd = io.cwd()
  const file = config.findFile(given, cwd)
  const { exported, deploy: section } = await config.readSection(file, cwd)
  const target = config.resolveTarget(section, envName, { file, cwd, notice: (line) => io.notice(line) })
  target.apps = config.appNames(exported)
  const isRelease = action.verb === 'release'
  const parallel = parseParallel(opts.parallel, isRelease ? 1 : target.hosts.length)
  const options = { ...action, parallel, revert: opts.revert !== false, health: opts.health !== false, force: Boolean(opts.force), healthTimeout: healthTimeout * 1000 }

  if (opts.dryRun) {
    io.stdout.write(require('../deploy/dry-run').renderPlan(target, options, { cwd, env: io.env }))
    return 0
  }
  if (isRelease && !opts.force) checkLocalChanges(cwd, io.env)
  return require('../deploy/execute').execute({ io, target, options, cwd })
}

function help (io) {
  io.stdout.write(HELP)
  return 0
}

// pm2 deploy refuses to deploy from a checkout with uncommitted or unpushed changes (unless
// --force): the host fetches what is pushed, not what is here. Outside a git checkout: no check.
function checkLocalChanges (cwd, env) {
  const { spawnSync } = require('node:child_process')
  const git = (...a) => spawnSync('git', a, { cwd, env, encoding: 'utf8' })
  const inside = git('rev-parse', '--is-inside-work-tree')
  if (inside.error || inside.status !== 0) return
  const refuse = (what) => { throw new XpmError('XPM_ERR_DEPLOY_LOCAL_CHANGES', `${what} in ${cwd}; the hosts would not get them (add --force to deploy anyway)`) }
  if (git('--no-pager', 'diff', '--quiet').status !== 0) refuse('uncommitted changes')
  if (git('--no-pager', 'diff', '--quiet', '--cached').status !== 0) refuse('staged, uncommitted changes')
  const ahead = git('rev-list', '@{upstream}..', '-n', '1')
  if (ahead.status === 0 && ahead.stdout.trim()) refuse('commits not pushed to the upstream branch')
}

module.exports = { deploy, parseVerb, HELP }
