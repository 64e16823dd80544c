export interface ExpiryLinks<T> {
  expiresAt: number
  earlier: T | undefined
  later: T | undefined
}

/**
 * Items ordered by expiry, earliest first, for a clock that only moves forward: an item is
 * moved to the back whenever its expiry moves later, so expiring only looks at the front.
 * A doubly linked list rather than a Map, because items also leave from anywhere (the LRU
 * drops them): a Map keeps removed slots in its iteration order until it is rehashed, and
 * looking at its front became a walk over up to a hundred thousand holes.
 */
export class ExpiryQueue<T extends ExpiryLinks<T>> {
  #first: T | undefined
  #last: T | undefined

  /** The item that expires first, when the clock is strictly past its expiry. */
  expiredFirst(at: number): T | undefined {
    return this.#first && at > this.#first.expiresAt ? this.#first : undefined
  }

  moveToBack(item: T): void {
    this.remove(item)
    item.earlier = this.#last
    if (this.#last) this.#last.later = item
    else this.#first = item
    this.#last = item
  }

  /** Does nothing for an item that is not queued. */
  remove(item: T): void {
    if (item.earlier) item.earlier.later = item.later
    else if (this.#first === item) this.#first = item.later
    else return
    if (item.later) item.later.earlier = item.earlier
    else this.#last = item.earlier
    item.earlier = undefined
    item.later = undefined
  }
}
