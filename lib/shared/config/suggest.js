'use strict'

// Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions),
// so "kill_tiemout" is one edit from "kill_timeout".
function distance (a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i])
  for (let j = 1; j <= b.length; j++) d[0][j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1)
      }
    }
  }
  return d[a.length][b.length]
}

// camelCase and kebab-case spellings of a snake_case key count as exact matches.
const fold = (s) => String(s).toLowerCase().replace(/[-_]/g, '')

// The closest candidate, or null when none is close enough to be a plausible typo.
function suggest (input, candidates) {
  const folded = fold(input)
  let best = null
  let bestDistance = Infinity
  for (const candidate of candidates) {
    const d = distance(folded, fold(candidate))
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  const limit = Math.max(1, Math.floor(folded.length / 4))
  return best !== null && bestDistance <= limit ? best : null
}

function didYouMean (input, candidates) {
  const near = suggest(input, candidates)
  return near ? ` — did you mean "${near}"?` : ''
}

module.exports = { distance, suggest, didYouMean }
