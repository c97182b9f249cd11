/** A one-line progress bar on stderr, only when stderr is a terminal (never in pipes or CI logs). */
export class ProgressBar {
  private last = 0
  private readonly tty = process.stderr.isTTY === true

  constructor(private readonly label: string) {}

  update(done: number, total: number, extra = ''): void {
    if (!this.tty) return
    const now = Date.now()
    if (done < total && now - this.last < 80) return
    this.last = now
    const width = 28
    const fill = total ? Math.round((done / total) * width) : width
    process.stderr.write(`\r${this.label} [${'='.repeat(fill)}${' '.repeat(width - fill)}] ${done}/${total} ${extra}\x1b[K`)
  }

  done(): void {
    if (this.tty) process.stderr.write('\r\x1b[K')
  }
}

/**
 * Episode progress for the commands that evaluate without a progress line of their own (eval,
 * promote, gate): the runner's onProgress as a bar on a terminal, nothing otherwise. Each run
 * (baseline, candidate, each pass) starts the bar again from 0.
 */
export function episodeProgress(label: string): {options: {onProgress?: (p: {done: number; total: number; passed: number; invalid: number}) => void}; done(): void} {
  const bar = new ProgressBar(label)
  if (process.stderr.isTTY !== true) return {options: {}, done: () => undefined}
  return {options: {onProgress: p => bar.update(p.done, p.total, `passed ${p.passed} invalid ${p.invalid}`)}, done: () => bar.done()}
}
