import type { eventWithTime } from '@rrweb/types'
import type { recordOptions } from 'rrweb'
import type { ResolvedOptions } from './options'

/**
 * What rrweb is told to record and keep private, the same in every mode: a top window and a
 * child frame that passes its recording to its parent (frame-recorder.ts) must never differ
 * in what they mask.
 */
export function captureOptions(options: ResolvedOptions): recordOptions<eventWithTime> {
  const canvas = options.recordCanvas
  return {
    maskAllInputs: options.maskAllInputs,
    // Kept out of recordings whatever maskAllInputs says.
    maskInputOptions: options.maskAllInputs ? undefined : { password: true, email: true, tel: true },
    blockSelector: options.blockSelector,
    maskTextSelector: options.maskTextSelector,
    // A number for `canvas` has rrweb send each canvas as an image that often (when it changed),
    // which the dashboard can draw without letting the replay run script (docs/recorder.md).
    sampling: { scroll: 150, media: 800, input: 'last', ...(canvas ? { canvas: canvas.fps } : {}) },
    recordCanvas: canvas !== null,
    ...(canvas ? { dataURLOptions: { type: 'image/webp', quality: canvas.quality } } : {}),
  }
}
