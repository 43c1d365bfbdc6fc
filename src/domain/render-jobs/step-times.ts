/** Wall-clock milliseconds of an attempt's steps, for its log line: `lap` closes the step that ran since the previous lap. */
export class StepTimes {
  readonly ms: Record<string, number> = {};
  #last = performance.now();

  /** Adds the milliseconds since the previous lap (or since construction) to `step`. */
  lap(step: string): void {
    const now = performance.now();
    this.ms[step] = (this.ms[step] ?? 0) + Math.round(now - this.#last);
    this.#last = now;
  }
}
