/**
 * "Did the page respond?" (docs/design/analysis.md §4.3): a bounded ring of response times that clicks
 * query by event sequence number. Only the first response after each click (a "mark") can
 * ever be asked for, so responses with no mark since the last stored one are not stored:
 * a page that mutates continuously costs one slot per click, not one per mutation.
 */

export interface Response {
  seq: number
  at: number
}

class SeqRing {
  private readonly seqs: Float64Array
  private readonly times: Float64Array
  private start = 0
  private size = 0
  private dropped: Response | null = null

  constructor(private readonly capacity: number) {
    this.seqs = new Float64Array(capacity)
    this.times = new Float64Array(capacity)
  }

  push(seq: number, at: number): void {
    const index = (this.start + this.size) % this.capacity
    if (this.size === this.capacity) {
      this.dropped = { seq: this.seqs[this.start]!, at: this.times[this.start]! }
      this.start = (this.start + 1) % this.capacity
    } else {
      this.size++
    }
    this.seqs[index] = seq
    this.times[index] = at
  }

  lastSeq(): number {
    return this.size === 0 ? -1 : this.seqs[(this.start + this.size - 1) % this.capacity]!
  }

  /** The first stored entry with a sequence number above `seq`, by binary search. */
  firstAfter(seq: number): Response | null {
    let low = 0
    let high = this.size
    while (low < high) {
      const mid = (low + high) >> 1
      if (this.seqs[(this.start + mid) % this.capacity]! > seq) high = mid
      else low = mid + 1
    }
    // The entry that answered may have been overwritten; the last one dropped is an upper bound.
    if (low === 0 && this.dropped && this.dropped.seq > seq) return this.dropped
    if (low === this.size) return null
    const index = (this.start + low) % this.capacity
    return { seq: this.seqs[index]!, at: this.times[index]! }
  }
}

export class ResponseLog {
  private readonly responses = new SeqRing(512)
  private readonly scrolls = new SeqRing(512)
  private lastMark = -1

  /** A click or mouse-down whose response may be asked for later. */
  mark(seq: number): void {
    this.lastMark = seq
  }

  response(seq: number, at: number): void {
    if (this.responses.lastSeq() < this.lastMark) this.responses.push(seq, at)
  }

  scroll(seq: number, at: number): void {
    if (this.scrolls.lastSeq() < this.lastMark) this.scrolls.push(seq, at)
  }

  /** First response (scrolls count only within `scrollWindowMs` of `since.at`) after a mark. */
  firstResponse(since: { seq: number; at: number }, scrollWindowMs = 300): Response | null {
    const response = this.responses.firstAfter(since.seq)
    const scroll = this.scrolls.firstAfter(since.seq)
    const scrolled = scroll && scroll.at - since.at <= scrollWindowMs ? scroll : null
    if (!response) return scrolled
    if (!scrolled) return response
    return scrolled.seq < response.seq ? scrolled : response
  }
}
