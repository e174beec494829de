/**
 * Edits between `a` and `b`: insertions, deletions, substitutions, and swaps of two neighbours
 * (optimal string alignment), so `stauts` is one edit from `status`.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The candidate closest to `word` (the first of equals), if it is close enough to be a typo of it:
 * at most one edit for words up to four letters, two up to eight, three beyond.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const allowed = word.length <= 4 ? 1 : word.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = allowed + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** `; did you mean "serve"?` after a message about `word` (`quote` false: `; did you mean --json?`), or nothing when no candidate is close. */
export function didYouMean(word: string, candidates: readonly string[], quote = true): string {
  const match = closest(word, candidates);
  if (match === undefined) return "";
  return `; did you mean ${quote ? `"${match}"` : match}?`;
}
