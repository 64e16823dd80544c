import { describe, expect, it } from 'vitest'
import { MutationBudget, RateCounter, TokenBucket } from '@/sdk/src/mutation-budget'

/** A stand-in DOM: nodes are plain objects with a parent, and a name for the assertions. */
interface FakeNode {
  name: string
  parent: FakeNode | null
}
const node = (name: string, parent: FakeNode | null = null): FakeNode => ({ name, parent })

function tree() {
  const body = node('body')
  const main = node('main', body)
  const ticker = node('ticker', main)
  const rows = Array.from({ length: 20 }, (_, i) => node(`row-${i}`, ticker))
  const form = node('form', main)
  const field = node('field', form)
  return { body, main, ticker, rows, form, field }
}

function budgetFor(perSecond: number, clock: { now: number }) {
  return new MutationBudget<FakeNode>({
    perSecond,
    parentOf: (n) => n.parent,
    canTrip: (n) => n.name !== 'body',
    now: () => clock.now,
  })
}

describe('TokenBucket', () => {
  it('lets a burst of twice the rate through, then refuses until it refills', () => {
    const bucket = new TokenBucket(100, 0)
    expect(bucket.take(100, 0)).toBe(true)
    expect(bucket.take(100, 0)).toBe(true)
    expect(bucket.take(1, 0)).toBe(false)
    // Half a second refills 50 tokens.
    expect(bucket.take(50, 500)).toBe(true)
    expect(bucket.take(1, 500)).toBe(false)
  })

  it('charges one large update at most one second of the rate, so a single render never empties it', () => {
    const bucket = new TokenBucket(100, 0)
    expect(bucket.take(5000, 0)).toBe(true)
    expect(bucket.take(100, 0)).toBe(true)
    expect(bucket.take(1, 0)).toBe(false)
  })
})

describe('RateCounter', () => {
  it('estimates a sliding second from the current and the previous window', () => {
    const counter = new RateCounter()
    counter.add(1000, 100)
    expect(counter.rate(999)).toBe(1000)
    // A quarter into the next window: three quarters of the previous one still count.
    expect(counter.rate(1250)).toBe(750)
    expect(counter.rate(2100)).toBe(0)
  })
})

describe('MutationBudget', () => {
  it('stops the smallest subtree over the budget, not its container or its quiet neighbours', () => {
    const clock = { now: 10_000 }
    const t = tree()
    const budget = budgetFor(100, clock)
    const trips: string[] = []
    // 100 changes every 10 ms spread over the ticker's rows (10,000/s), and a form field now and then.
    for (let tick = 0; tick < 100 && trips.length === 0; tick++) {
      clock.now += 10
      const changes = new Map<FakeNode, number>()
      for (const row of t.rows) changes.set(row, 5)
      if (tick % 10 === 0) changes.set(t.field, 1)
      const verdict = budget.charge(changes)
      trips.push(...verdict.trip.map((trip) => trip.node.name))
      expect(verdict.pageRate).toBeNull()
    }
    expect(trips).toEqual(['ticker'])
  })

  it('reports the rate the subtree ran at when it was stopped', () => {
    const clock = { now: 0 }
    const t = tree()
    const budget = budgetFor(100, clock)
    let rate = 0
    for (let tick = 0; tick < 100 && rate === 0; tick++) {
      clock.now += 10
      rate = budget.charge(new Map([[t.field, 10]])).trip[0]?.rate ?? 0
    }
    expect(rate).toBeGreaterThan(100)
    expect(rate).toBeLessThanOrEqual(1000)
  })

  it('never stops a subtree that stays within the budget, however long it runs', () => {
    const clock = { now: 0 }
    const t = tree()
    const budget = budgetFor(100, clock)
    for (let tick = 0; tick < 1000; tick++) {
      clock.now += 100
      const verdict = budget.charge(new Map([[t.rows[tick % 20]!, 9]]))
      expect(verdict.trip).toEqual([])
      expect(verdict.pageRate).toBeNull()
    }
  })

  it('lets one large render through (thousands of nodes added at once)', () => {
    const clock = { now: 0 }
    const t = tree()
    const budget = budgetFor(100, clock)
    expect(budget.charge(new Map([[t.main, 5000]]))).toEqual({ trip: [], pageRate: null })
  })

  it('stops a subtree once and then stops counting it', () => {
    const clock = { now: 0 }
    const t = tree()
    const budget = budgetFor(100, clock)
    const trips: string[] = []
    for (let tick = 0; tick < 300; tick++) {
      clock.now += 10
      trips.push(...budget.charge(new Map([[t.field, 10]])).trip.map((trip) => trip.node.name))
    }
    expect(trips).toEqual(['field'])
  })

  it('stops both of two hot parts, each on its own', () => {
    const clock = { now: 0 }
    const t = tree()
    const budget = budgetFor(100, clock)
    const trips = new Set<string>()
    for (let tick = 0; tick < 100; tick++) {
      clock.now += 10
      for (const trip of budget.charge(
        new Map([
          [t.field, 10],
          [t.rows[3]!, 10],
        ]),
      ).trip)
        trips.add(trip.node.name)
    }
    expect([...trips].sort()).toEqual(['field', 'row-3'])
  })

  it('pauses the page when many parts, each within the budget, add up past the hard bound', () => {
    const clock = { now: 0 }
    const body = node('body')
    // 600 siblings directly under <body> (which is never stopped on its own), 2 changes each per 10 ms.
    const parts = Array.from({ length: 600 }, (_, i) => node(`p-${i}`, body))
    const budget = budgetFor(1000, clock)
    let pageRate: number | null = null
    let tripped = 0
    for (let tick = 0; tick < 300 && pageRate === null; tick++) {
      clock.now += 10
      const changes = new Map<FakeNode, number>()
      for (const part of parts) changes.set(part, 2)
      const verdict = budget.charge(changes)
      tripped += verdict.trip.length
      pageRate = verdict.pageRate
    }
    expect(tripped).toBe(0)
    expect(pageRate).toBeGreaterThan(budget.pageBound)
  })

  it('starts afresh after a reset', () => {
    const clock = { now: 0 }
    const body = node('body')
    const parts = Array.from({ length: 600 }, (_, i) => node(`p-${i}`, body))
    const budget = budgetFor(1000, clock)
    const busy = () => {
      const changes = new Map<FakeNode, number>()
      for (const part of parts) changes.set(part, 2)
      return changes
    }
    let paused = false
    for (let tick = 0; tick < 300 && !paused; tick++) {
      clock.now += 10
      paused = budget.charge(busy()).pageRate !== null
    }
    expect(paused).toBe(true)
    budget.reset()
    clock.now += 10
    expect(budget.charge(busy()).pageRate).toBeNull()
  })
})
