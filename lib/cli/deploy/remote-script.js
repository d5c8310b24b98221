'use strict'

// The commands run on a host, one short POSIX sh script per step, on pm2 deploy's layout:
//   <path>/source     the git clone (every release is a `git reset --hard` in it)
//   <path>/current -> <path>/source
//   <path>/shared/{logs,pids}
//   <path>/.deploys   one line per release, newest last; its first word is the commit
// (pm2 deploy writes the bare commit; xpm adds the time and who deployed after it, which
// pm2 deploy's `cut -d ' ' -f 1` skips, so either tool reads the other's log.)
// Each script is the command line given to ssh, run by the remote user's login shell as pm2
// deploy's are, so a hook written for pm2 deploy (`source ~/.nvm/nvm.sh && …`) runs unchanged.

// One word for the shell, quoted: 'it'\''s'.
function q (s) {
  s = String(s)
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`
}

// A remote path as a shell word; `~/x` becomes "$HOME"/x (quotes would stop the tilde).
function p (dir, ...parts) {
  const full = [dir, ...parts].join('/')
  if (full === '~') return '"$HOME"'
  if (full.startsWith('~/')) return `"$HOME"/${q(full.slice(2))}`
  return q(full)
}

// An env value inside double quotes: `$VAR` still expands, as in pm2 deploy's unquoted
// `export KEY=value`, but spaces and quotes stay in the value.
const dq = (v) => `"${String(v).replace(/["\\`]/g, (c) => `\\${c}`)}"`

// `export A="x" B="y"` for the target's env (keys in upper case, as pm2 deploy); secret: a copy
// with the values hidden, for what is printed.
function exportEnv (env, { secret = false } = {}) {
  const pairs = Object.entries(env || {}).filter(([k]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
  if (!pairs.length) return ''
  return 'export ' + pairs.map(([k, v]) => `${k.toUpperCase()}=${secret ? '***' : dq(v)}`).join(' ')
}

// pm2 deploy clones the branch named by the ref without its remote: origin/main → main.
const branchOf = (ref) => (ref.includes('/') ? ref.slice(ref.indexOf('/') + 1) : ref)

function mkdirs (path) {
  return `mkdir -p ${p(path, 'shared', 'logs')} ${p(path, 'shared', 'pids')} ${p(path, 'source')}`
}

// A clone already there (setup run again, or a host set up by pm2 deploy) is kept.
function clone (path, { repo, ref, fast }) {
  return `if [ -d ${p(path, 'source', '.git')} ]; then echo 'source already cloned; kept'; ` +
    `else git clone${fast ? ' --depth=5' : ''} --branch ${q(branchOf(ref))} ${q(repo)} ${p(path, 'source')}; fi`
}

// current -> source; left alone when it already points there (no moment without the link).
function link (path) {
  return `[ "$(readlink ${p(path, 'current')})" = ${p(path, 'source')} ] || ln -sfn ${p(path, 'source')} ${p(path, 'current')}`
}

// A hook in <path>/current, with SHARED exported; withEnv: the target's env too, read from
// ssh's stdin (envInput) so its values are on no command line here or on the host.
const READ_ENV = 'eval "$(cat)"'

function hook (path, command, { withEnv = false } = {}) {
  return `cd ${p(path, 'current')} && export SHARED=${p(path, 'shared')} && ${withEnv ? READ_ENV + ' && ' : ''}${command}`
}

// What READ_ENV reads: `export A="x" …` (or `:` for no env).
const envInput = (env) => (exportEnv(env) || ':') + '\n'

function head (path) {
  return `cd ${p(path, 'source')} && git rev-parse HEAD`
}

function fetch (path, { fast }) {
  return `cd ${p(path, 'source')} && git fetch${fast ? ' --depth=5' : ''} --all --tags`
}

// A release refuses a source folder with tracked files changed on the host (a `reset --hard`
// would discard someone's edit), except the lockfiles an install on the host rewrites; untracked
// files are kept by a reset and do not count. force (and an auto-revert, which must not be
// stopped) discards them with a note. The last line is the commit checked out.
const DIRTY = 'tracked files changed on the host:'
const LOCKFILES = "'(.*/)?(package-lock\\.json|npm-shrinkwrap\\.json|yarn\\.lock|pnpm-lock\\.yaml)'"

function reset (path, ref, { force = false } = {}) {
  const changed = 'git status --porcelain --untracked-files=no'
  const refuse = force
    ? ''
    : `dirty=$(${changed} | cut -c4- | grep -vxE ${LOCKFILES}); ` +
      `if [ -n "$dirty" ]; then echo ${q(DIRTY)}; echo "$dirty"; exit 3; fi; `
  return `cd ${p(path, 'source')} || exit 1; ${refuse}if [ -n "$(${changed})" ]; then ` +
    'echo "note: tracked files changed here are discarded:"; git status --short --untracked-files=no; fi && ' +
    `git reset --hard ${q(ref)} && git rev-parse HEAD`
}

function logRelease (path, who) {
  return `cd ${p(path, 'source')} && commit=$(git rev-parse HEAD) && ` +
    `echo "$commit $(date -u +%Y-%m-%dT%H:%M:%SZ) ${String(who).replace(/[^A-Za-z0-9@._-]/g, '_')}" >> ${p(path, '.deploys')} && echo "$commit"`
}

// An auto-revert takes back the line of the release it undoes (when it is the last), so the log
// lists what ran for good and `revert 1` never goes back to a release that was rolled back.
function unlogRelease (path, commit) {
  const log = p(path, '.deploys')
  return `if [ "$(tail -n 1 ${log} | cut -d ' ' -f 1)" = ${q(commit)} ]; then sed '$d' ${log} > ${log}.tmp && mv ${log}.tmp ${log}; fi`
}

// The commit of the n-th release before the last (revert n): line n+1 from the end of the log.
function nthRelease (path, n) {
  const log = p(path, '.deploys')
  return `[ -f ${log} ] || { echo 'no release logged in .deploys yet'; exit 1; }; ` +
    `count=$(wc -l < ${log}); if [ "$count" -le ${n} ]; then echo "only $count release(s) logged in .deploys"; exit 1; fi; ` +
    `tail -n ${n + 1} ${log} | head -n 1 | cut -d ' ' -f 1`
}

function current (path) {
  return `cd ${p(path, 'source')} && git rev-parse --short HEAD`
}

function previous (path) {
  return `tail -n 2 ${p(path, '.deploys')} | head -n 1 | cut -d ' ' -f 1`
}

// Newest first, numbered from 0, as pm2 deploy's `list` (which uses GNU tac).
function list (path) {
  return `awk '{ l[NR] = $0 } END { for (i = NR; i > 0; i--) printf "%d\\t%s\\n", NR - i, l[i] }' ${p(path, '.deploys')}`
}

function exec (path, command) {
  return `cd ${p(path, 'current')} && ${command}`
}

// The marker a missing xpm prints instead of the list: the host's hooks use something else.
const NO_XPM = '__xpm_absent__'

// The host's process list (`xpm jlist`) in the target's env (XPM_HOME, PATH…), read from stdin.
function jlist (path) {
  return `cd ${p(path, 'current')} && ${READ_ENV} && if command -v xpm >/dev/null 2>&1; then xpm jlist; else echo ${NO_XPM}; fi`
}

// status: the commit checked out, its time, and the last line of the release log.
function status (path) {
  return `cd ${p(path, 'source')} && git log -1 --format='%h %cI %s' && (tail -n 1 ${p(path, '.deploys')} 2>/dev/null || true)`
}

module.exports = { DIRTY, q, p, exportEnv, envInput, branchOf, mkdirs, clone, link, hook, head, fetch, reset, logRelease, unlogRelease, nthRelease, current, previous, list, exec, jlist, status, NO_XPM }
