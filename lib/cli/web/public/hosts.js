// Across hosts (`xpm web --hosts`): a chip per host in the header with its process count and
// state; an unreachable host is red with ssh's reason on hover, its rows kept and marked
// (columns.js), never shown as stopped. A click on a chip shows that host's rows only; again, all.
export class HostBar {
  // box: the header's element; onPick(label | null): the host to show only
  constructor ({ box, onPick }) {
    Object.assign(this, { box, onPick })
    this.states = new Map() // label → { state, message }
    this.picked = null
    this.chips = new Map()
    box.addEventListener('click', (e) => {
      const chip = e.target.closest('.host')
      if (!chip) return
      this.picked = this.picked === chip.dataset.host ? null : chip.dataset.host
      this.onPick(this.picked)
    })
  }

  // hosts: [{ label, state, message }] (the stream's `hosts` event)
  reset (hosts) {
    this.box.hidden = false
    for (const h of hosts) this.set(h)
  }

  set ({ label, state, message }) {
    this.states.set(label, { state, message })
  }

  unreachable (label) {
    return this.states.get(label)?.state === 'unreachable'
  }

  // counts: label → processes; redrawn with the table
  render (counts) {
    for (const [label, { state, message }] of this.states) {
      let chip = this.chips.get(label)
      if (!chip) {
        chip = document.createElement('button')
        chip.dataset.host = label
        this.box.appendChild(chip)
        this.chips.set(label, chip)
      }
      const text = `${label} ${state === 'unreachable' ? 'unreachable' : counts.get(label) ?? 0}`
      if (chip.textContent !== text) chip.textContent = text
      chip.className = `host ${state}${this.picked === label ? ' picked' : ''}`
      chip.title = state === 'unreachable' ? `${label}: unreachable${message ? ` (${message})` : ''}` : `${label}: ${state === 'up' ? 'live' : 'connecting…'}; click to show its processes only`
    }
  }

  summary () {
    const down = [...this.states.values()].filter((s) => s.state === 'unreachable').length
    return ` on ${this.states.size} host${this.states.size === 1 ? '' : 's'}${down ? ` (${down} unreachable)` : ''}`
  }
}
