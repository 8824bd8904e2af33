// A live stream fed in step with its output: each step's text is written only once the output shows all that
// the steps before it must have produced, and the input ends only after the last step's output is out. A result
// that waited for more input, or for the end of it, would never show, and the step fails at its deadline: the
// order of events is what is held, never how fast they come (those figures are `npm run bench`'s).
import { vi } from 'vitest';

/** How long a step waits for its output: only to stop a run that hangs (the test's time-out is 30 s). */
export const STEP_DEADLINE_MS = 20_000;

/** One write to the input, and the whole output (exactly) once that write has been answered. */
export type Step = [text: string, shown: string];

/** Waits until `output()` is exactly `shown` (or passes the test `shown`); after STEP_DEADLINE_MS, fails saying what it was. */
export async function untilShown(output: () => string, shown: string | ((text: string) => boolean)): Promise<void> {
  const done = typeof shown === 'string' ? (text: string) => text === shown : shown;
  await vi.waitFor(
    () => {
      if (!done(output())) throw new Error(`the output is ${JSON.stringify(output())}, waiting for ${typeof shown === 'string' ? JSON.stringify(shown) : 'more'}`);
    },
    { timeout: STEP_DEADLINE_MS, interval: 5 },
  );
}

/** Writes each step's text into `input` once the output shows the step before it; the input is left open. */
export async function feedInStep(input: { write(text: string): unknown }, output: () => string, steps: Step[]): Promise<void> {
  for (const [text, shown] of steps) {
    input.write(text);
    await untilShown(output, shown);
  }
}

/** Steps of one line each, whose output is a line per record (ndjson). */
export function ndjsonSteps(lines: string[], status = 'ok'): Step[] {
  const out = lines.map((email) => JSON.stringify({ email, status }) + '\n');
  return lines.map((line, i) => [line + '\n', out.slice(0, i + 1).join('')]);
}
