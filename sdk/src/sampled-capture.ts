/**
 * Routes a session's events by its sampling mode: `full` to the batches, `off` nowhere, `buffer`
 * into memory until a trigger, which hands the buffered recording over and switches the session
 * to `full`. The recorder wires it in; pure, so Node tests drive it.
 */
import type { TimedEvent } from './batch'
import { type BufferedRecording, ErrorBuffer } from './error-buffer'
import { TriggerDetector, type TriggerKind } from './error-triggers'
import type { SamplingMode } from './sampling'

export interface SampledCaptureOptions {
  /** `errorBufferMs`. */
  windowMs: number
  maxBytes?: number
  /** Takes a full snapshot soon (not synchronously: rrweb is emitting). */
  checkout: () => void
  /**
   * The session is to be recorded in full from now on; `recording` is what the buffer held,
   * the trigger included (null when it held nothing replayable).
   */
  promote: (recording: BufferedRecording | null, kind: TriggerKind) => void
}

export class SampledCapture {
  private current: SamplingMode
  private readonly buffer: ErrorBuffer
  private readonly triggers = new TriggerDetector()

  constructor(
    mode: SamplingMode,
    private readonly options: SampledCaptureOptions,
  ) {
    this.current = mode
    this.buffer = new ErrorBuffer({ windowMs: options.windowMs, maxBytes: options.maxBytes })
  }

  get mode(): SamplingMode {
    return this.current
  }

  /** Bytes held in memory now (for tests and the debug log). */
  get bufferedBytes(): number {
    return this.buffer.bytes
  }

  /** A new session (or its end): what was buffered belongs to the old one. */
  setMode(mode: SamplingMode): void {
    this.current = mode
    this.buffer.clear()
    this.triggers.reset()
  }

  /** True when the event stays here (buffered or dropped); false when it goes to the batches. */
  hold(event: TimedEvent): boolean {
    if (this.current === 'full') return false
    if (this.current === 'off') return true
    const checkout = this.buffer.add(event)
    const kind = this.triggers.check(event)
    if (kind) {
      this.current = 'full'
      const recording = this.buffer.take()
      this.triggers.reset()
      this.options.promote(recording, kind)
      return true
    }
    if (checkout) this.options.checkout()
    return true
  }
}
