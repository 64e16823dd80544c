import type { Agent } from 'node:http'
import type { RrwebEvent } from '@/lib/analysis/types'
import { hostileEvents } from '../helpers/hostile-events'
import { type Recorder, send, word } from './load-traffic'

/**
 * The visitors of `npm run bench:capacity`: people on customers' sites, each recorded by our
 * recorder at its real cadence. A visitor stays a few minutes and views pages one after the
 * other; each page view is one of the recorded fixtures (tests/fixtures/recordings) played
 * at its own pace, so batch sizes and the event mix are the fixtures', full snapshot first.
 * Between page views the visitor reads (no events, so no batches). The recorder sends what
 * is pending every flush interval and, when the visitor leaves, a last batch with
 * `flush: "final"`; a batch is never sent while the previous one is unanswered (the recorder
 * keeps order), and a refused one is sent again with the next. Every timestamp is the real
 * time the event happened.
 */

export const FLUSH_INTERVAL_MS = 5_000
const LIFETIME_MS = { min: 60_000, max: 240_000 }
const READING_MS = { min: 0, max: 10_000 }

export interface Fixture {
  name: string
  /** Events with `at`: milliseconds from the page view's first event. */
  events: { at: number; event: RrwebEvent }[]
  /** How many issues the page view files (tests/fixtures/recordings/expected.json). */
  expectedIssues: number
  /** Makes the issue distinct per visitor (a new issue rather than one more session of it). */
  variant?: (word: string) => (text: string) => string
  eventsJson: string
}

const VARIANTS: Record<string, (word: string) => (text: string) => string> = {
  'console-error': (word) => (text) =>
    text.replaceAll('Payment widget failed to load', `Payment widget ${word} failed to load`),
  'network-500': (word) => (text) => text.replaceAll('/api/checkout', `/api/checkout-${word}`),
}

export function fixturesFrom(
  recordings: { name: string; eventsJson: string }[],
  expected: Record<string, unknown[]>,
): Fixture[] {
  return recordings.map(({ name, eventsJson }) => {
    const events = JSON.parse(eventsJson) as RrwebEvent[]
    const first = events[0]?.timestamp ?? 0
    return {
      name,
      events: events.map((event) => ({ at: event.timestamp - first, event })),
      expectedIssues: expected[name]?.length ?? 0,
      variant: VARIANTS[name],
      eventsJson,
    }
  })
}

/** A small deterministic generator, so that two runs offer the same visitors. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1
  return () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 0x1_0000_0000
  }
}

const between = (random: () => number, range: { min: number; max: number }) =>
  range.min + random() * (range.max - range.min)

export interface VisitorOptions {
  n: number
  runId: string
  key: string
  fixture: Fixture
  /** This visitor's issue is its own (a new issue), not one more session of a known one. */
  distinct: boolean
  hostile: boolean
  startedAt: number
  random: () => number
}

interface Scheduled {
  at: number
  event: RrwebEvent
}

export class Visitor {
  readonly externalId: string
  readonly key: string
  /** The visitor's own address, as the site's reverse proxy passes it on. */
  readonly address: string
  readonly expectedIssues: number
  readonly hostile: boolean
  /** When the final batch was answered 200 (Date.now()), once it was. */
  endedAt: number | null = null
  private readonly schedule: Scheduled[] = []
  private nextEvent = 0
  private pending: RrwebEvent[] = []
  private sequence = 0
  private nextFlushAt: number
  private inFlight = false
  private leavesAt: number
  private readonly entryUrl: string
  private pageUrl: string
  private hostileSent = false

  constructor(private readonly options: VisitorOptions) {
    this.externalId = `${options.runId}-v${options.n}`
    this.key = options.key
    this.address = `10.${(options.n >> 16) & 255}.${(options.n >> 8) & 255}.${options.n & 255}`
    this.expectedIssues = options.fixture.expectedIssues
    this.hostile = options.hostile
    this.nextFlushAt = options.startedAt + FLUSH_INTERVAL_MS
    this.leavesAt = options.startedAt + between(options.random, LIFETIME_MS)
    const source = options.fixture
    const events =
      options.distinct && source.variant
        ? fixturesFrom(
            [{ name: source.name, eventsJson: source.variant(word(options.n))(source.eventsJson) }],
            {},
          )[0]!.events
        : source.events
    // Page views until the visitor leaves, each after a pause for reading.
    let start = options.startedAt
    while (start < this.leavesAt) {
      for (const { at, event } of events) this.schedule.push({ at: start + at, event })
      start += (events.at(-1)?.at ?? 0) + between(options.random, READING_MS) + 1
    }
    this.entryUrl = hrefOf(events.find(({ event }) => hrefOf(event))?.event) ?? 'https://shop.example/'
    this.pageUrl = this.entryUrl
  }

  leaveBy(at: number): void {
    this.leavesAt = Math.min(this.leavesAt, at)
  }

  /** Whether the visitor has left and its final batch was accepted. */
  get done(): boolean {
    return this.endedAt !== null
  }

  /**
   * What the recorder sends at `now`, if anything: the events recorded since the last batch,
   * once per flush interval; everything left (at least the last event) as the final batch
   * once the visitor has left.
   */
  take(now: number): { body: string; final: boolean } | null {
    if (this.inFlight || this.done) return null
    while (this.nextEvent < this.schedule.length && this.schedule[this.nextEvent]!.at <= now) {
      const { at, event } = this.schedule[this.nextEvent++]!
      this.pending.push({ ...event, timestamp: Math.round(at) } as RrwebEvent)
    }
    const leaving = now >= this.leavesAt
    if (leaving) {
      // The page is hidden: what was scheduled later never happens; the last event recorded
      // (or the first of the next page, had it started) goes with the final batch.
      if (this.pending.length === 0) {
        const last = this.schedule[Math.max(0, this.nextEvent - 1)]!
        this.pending.push({
          ...last.event,
          timestamp: Math.round(Math.min(now, Math.max(last.at, now - 1))),
        } as RrwebEvent)
      }
    } else if (now < this.nextFlushAt || this.pending.length === 0) {
      if (now >= this.nextFlushAt) this.nextFlushAt = now + FLUSH_INTERVAL_MS
      return null
    }
    this.nextFlushAt = now + FLUSH_INTERVAL_MS
    if (this.hostile && !this.hostileSent && this.sequence === 1) {
      this.hostileSent = true
      this.pending.push(...hostileEvents(now))
    }
    const events = this.pending
    for (const event of events) this.pageUrl = hrefOf(event) ?? this.pageUrl
    const body = JSON.stringify({
      session: {
        id: this.externalId,
        windowId: 'w1',
        startedAt: this.options.startedAt,
        lastActivityAt: events.at(-1)!.timestamp,
        url: this.entryUrl,
      },
      // The visitor's own id, so that the Data API can find the session by `user.id`.
      user: { anonymousId: `anon-${this.options.n}`, id: this.externalId, properties: {} },
      page: { url: this.pageUrl, referrer: null, viewport: { width: 1280, height: 800 } },
      replay: { events, sequence: this.sequence },
      metadata: { userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0', language: 'en' },
      flush: leaving ? 'final' : 'normal',
    })
    return { body, final: leaving }
  }

  /** The batch just taken was sent: `accepted` says whether it was answered 200. */
  settle(taken: RrwebEvent[] | null, accepted: boolean, final: boolean, at: number): void {
    if (accepted) {
      this.pending = []
      this.sequence++
      if (final) this.endedAt = at
    } else if (taken) this.pending = taken
  }

  markInFlight(value: boolean): void {
    this.inFlight = value
  }

  pendingEvents(): RrwebEvent[] {
    return this.pending
  }
}

function hrefOf(event: RrwebEvent | undefined): string | undefined {
  if (event?.type !== 4 || typeof event.data !== 'object' || event.data === null) return undefined
  const href = (event.data as { href?: unknown }).href
  return typeof href === 'string' ? href : undefined
}

export interface PoolOptions {
  agent: Agent
  baseUrl: string
  /** Ingest keys per organization: a visitor uses its organization's keys in turn. */
  keys: string[][]
  fixtures: Fixture[]
  recorder: Recorder
  runId: string
  /** One visitor in this many is hostile (0: none). */
  hostileEvery: number
  /** One visitor with an issue in this many files a new issue of its own. */
  distinctEvery: number
  onEnded: (visitor: Visitor, organization: number) => void
}

/**
 * Keeps `target` visitors on the site: visitors who leave are replaced, a higher target
 * brings new ones in over `rampSeconds`, a lower one lets leavers go unreplaced. Ticks every
 * 100 ms; each tick sends what every visitor's recorder would send at that moment.
 */
export class VisitorPool {
  readonly visitors = new Set<Visitor>()
  target = 0
  batches = 0
  bytes = 0
  finals = 0
  private created = 0
  private readonly random = seededRandom(38)
  private timer: NodeJS.Timeout | undefined
  private readonly organizationOf = new Map<Visitor, number>()
  private rampPerTick = 1

  constructor(private readonly options: PoolOptions) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), 100)
  }

  stop(): void {
    clearInterval(this.timer)
  }

  /** Every visitor leaves now (their final batches go at the next tick), and none arrives. */
  leaveAll(): void {
    this.target = 0
    const now = Date.now()
    for (const visitor of this.visitors) visitor.leaveBy(now)
  }

  setTarget(target: number, rampSeconds: number): void {
    this.rampPerTick = Math.max(1, Math.ceil(Math.max(0, target - this.visitors.size) / (rampSeconds * 10)))
    this.target = target
  }

  /** Visitors recording now: arrived, and their final batch not yet accepted. */
  get recording(): number {
    return this.visitors.size
  }

  private tick(): void {
    const now = Date.now()
    for (let i = 0; i < this.rampPerTick && this.visitors.size < this.target; i++) this.arrive(now)
    for (const visitor of this.visitors) {
      const taken = visitor.take(now)
      if (taken) void this.send(visitor, taken.body, taken.final)
    }
  }

  private arrive(now: number): void {
    const n = this.created++
    const { fixtures, keys } = this.options
    const fixture = fixtures[n % fixtures.length]!
    const organization = n % keys.length
    const orgKeys = keys[organization]!
    const visitor = new Visitor({
      n,
      runId: this.options.runId,
      key: orgKeys[Math.floor(n / keys.length) % orgKeys.length]!,
      fixture,
      distinct:
        fixture.expectedIssues > 0 && this.options.distinctEvery > 0 && n % this.options.distinctEvery === 0,
      hostile:
        this.options.hostileEvery > 0 && n % this.options.hostileEvery === this.options.hostileEvery - 1,
      startedAt: now,
      random: this.random,
    })
    this.visitors.add(visitor)
    this.organizationOf.set(visitor, organization)
  }

  private async send(visitor: Visitor, body: string, final: boolean): Promise<void> {
    visitor.markInFlight(true)
    const taken = visitor.pendingEvents()
    const started = performance.now()
    let status = 0
    let detail = ''
    try {
      const answer = await send(this.options.agent, this.options.baseUrl, {
        method: 'POST',
        path: '/api/sdk/replay',
        headers: {
          'content-type': 'application/json',
          'x-service-api-key': visitor.key,
          'x-forwarded-for': visitor.address,
        },
        body,
      })
      status = answer.status
      detail = answer.body.slice(0, 200)
    } catch (error) {
      detail = error instanceof Error ? error.message : String(error)
    }
    const accepted = status === 200
    this.options.recorder.record(
      'ingest',
      performance.now() - started,
      accepted ? 'ok' : 'error',
      accepted ? undefined : `${visitor.externalId}: ${status} ${detail}`,
    )
    this.batches++
    this.bytes += body.length
    visitor.settle(accepted ? null : taken, accepted, final, Date.now())
    visitor.markInFlight(false)
    if (visitor.done) {
      this.finals++
      this.visitors.delete(visitor)
      const organization = this.organizationOf.get(visitor) ?? 0
      this.organizationOf.delete(visitor)
      this.options.onEnded(visitor, organization)
    }
  }
}
