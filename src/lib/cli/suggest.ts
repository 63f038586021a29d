// The one way a mistyped word is answered: `unknown command 'billing invoice'; did you mean
// 'billing invoices'? (see billing --help)`, for command groups, verbs and options alike.

/** Edit distance with adjacent transpositions (optimal string alignment), as commander measures it. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidate nearest to what was typed, if near enough to be what was meant: at most 40% of
 * its letters different (one at least), the first of equals; case is ignored.
 */
export function closest(typed: string, candidates: readonly string[]): string | undefined {
  const word = typed.toLowerCase();
  let best: { name: string; by: number } | undefined;
  for (const name of candidates) {
    const by = distance(word, name.toLowerCase());
    if (by <= Math.max(1, Math.floor(name.length * 0.4)) && (best === undefined || by < best.by)) best = { name, by };
  }
  return best?.name;
}

/** `; did you mean 'X'?`, or nothing. */
export const didYouMean = (meant: string | undefined): string =>
  meant === undefined ? '' : `; did you mean '${meant}'?`;
