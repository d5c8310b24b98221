'use strict'

// `xpm list` with Japanese, Chinese, Korean and emoji app names lines up by display width, in a
// pipe (80 columns assumed) and in a real 80-column terminal (tmux): every line as wide as the
// rules, every bar in the same column, long names cut with '…' rather than pushing past 80.
const test = require('node:test')
const assert = require('node:assert/strict')
const { createHome, fixture, BIN } = require('../helpers/xpm')
const { TmuxSession, tmuxAvailable } = require('../helpers/tmux')
const { displayWidth } = require('../../lib/cli/display-width')

const NAMES = ['日本語アプリケーションサーバー', '中文应用', '한국어', '🚀-rocket']

function assertAligned (table, label) {
  const lines = table.split('\n').map((l) => l.trimEnd()).filter((l) => /^[┌│└]/.test(l))
  assert.ok(lines.length >= NAMES.length + 3, `${label}: the table\n${table}`)
  const bars = (line) => {
    const at = []
    let col = 0
    for (const ch of line) {
      if ('│┌┬┐└┴┘'.includes(ch)) at.push(col)
      col += displayWidth(ch)
    }
    return at.join(',')
  }
  for (const line of lines) {
    assert.equal(bars(line), bars(lines[0]), `${label}: ${line}`)
    assert.ok(displayWidth(line) <= 80, `${label}: ${displayWidth(line)} columns: ${line}`)
  }
  return lines
}

test('a list with CJK and emoji names lines up by display width, in a pipe and on a terminal', async (t) => {
  const h = createHome(t)
  for (const name of NAMES) {
    const res = await h.run(['start', fixture('idle.js'), '--name', name])
    assert.equal(res.code, 0, res.stderr)
  }
  assert.equal((await h.run(['stop', '한국어'])).code, 0)

  const piped = await h.run(['list'])
  assert.equal(piped.code, 0, piped.stderr)
  const lines = assertAligned(piped.stdout, 'pipe')
  assert.ok(lines.some((l) => /│ 日本語アプリ.*… +│/.test(l)), piped.stdout)
  assert.ok(piped.stdout.includes('│ 中文应用 ') && piped.stdout.includes('│ 🚀-rocket '), piped.stdout)
  const stopped = lines.find((l) => l.includes('한국어')).split('│').map((c) => c.trim())
  assert.deepEqual(stopped.slice(4, 6), ['-', '-'], 'a stopped app: no pid, no uptime')

  if (!(await tmuxAvailable())) return t.skip('tmux is not installed')
  const session = await TmuxSession.start({ command: [process.execPath, BIN, 'list'], cols: 80, rows: 40, env: h.env })
  t.after(() => session.kill())
  await session.waitForText(/tmux-helper exit 0/)
  // with a few lines of history: the pane may have scrolled by a line when the program started
  const screen = await session.tmux(['capture-pane', '-p', '-S', '-10', '-t', session.target])
  assertAligned(screen, 'terminal')
  assert.match(screen, /│ 日本語アプリ.*…/)
})
