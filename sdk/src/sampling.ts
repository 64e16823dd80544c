/**
 * Which sessions are recorded, decided once per session (session.ts keeps the answer):
 * `full` records from the start; `buffer` keeps the last `errorBufferMs` in memory and uploads
 * it only when something goes wrong (error-buffer.ts, error-triggers.ts); `off` records nothing.
 * Pure, so Node tests drive it.
 */

export type SamplingMode = 'full' | 'buffer' | 'off'

export const SAMPLING_MODES: readonly SamplingMode[] = ['full', 'buffer', 'off']

/**
 * `full` with probability `sessionSampleRate`; of the rest, `buffer` with probability
 * `errorSampleRate`, else `off`. `random` returns [0, 1), so a rate of 1 always and 0 never passes.
 */
export function decideSampling(
  sessionSampleRate: number,
  errorSampleRate: number,
  random: () => number,
): SamplingMode {
  if (random() < sessionSampleRate) return 'full'
  return random() < errorSampleRate ? 'buffer' : 'off'
}

export function isSamplingMode(value: unknown): value is SamplingMode {
  return typeof value === 'string' && (SAMPLING_MODES as readonly string[]).includes(value)
}
