/**
 * The session digest signals are matched against (types.ts SessionDigest): small, readable,
 * no input values. Every list is capped so a long session costs no more than a short one.
 */
import type { SessionDigest } from './types'

export const DIGEST_LIMIT = 200

type Lists = Omit<SessionDigest, 'durationMs'>

export class DigestBuilder {
  readonly lists: Lists = {
    pages: [],
    clicks: [],
    inputs: [],
    errors: [],
    networkFailures: [],
    rageClicks: [],
    deadClicks: [],
  }
  private lastInputKey: string | null = null

  add<K extends keyof Lists>(list: K, entry: Lists[K][number]): void {
    const target = this.lists[list] as Lists[K][number][]
    if (target.length < DIGEST_LIMIT) target.push(entry)
  }

  /** Keystrokes into one field update one entry: the digest keeps the final length only. */
  input(key: string, entry: SessionDigest['inputs'][number]): void {
    const last = this.lists.inputs[this.lists.inputs.length - 1]
    if (this.lastInputKey === key && last) {
      last.length = entry.length
      return
    }
    if (this.lists.inputs.length >= DIGEST_LIMIT) return
    this.lastInputKey = key
    this.lists.inputs.push(entry)
  }

  /** A rage click superseded dead clicks on the same element (§4.3). */
  dropDeadClicks(selector: string, text: string, at: number, windowMs: number): void {
    this.lists.deadClicks = this.lists.deadClicks.filter(
      (entry) => entry.selector !== selector || entry.text !== text || Math.abs(entry.at - at) > windowMs,
    )
  }

  result(durationMs: number): SessionDigest {
    return { durationMs, ...this.lists }
  }
}
