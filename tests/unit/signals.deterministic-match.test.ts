import { describe, expect, it } from 'vitest'
import type { SessionDigest } from '@/lib/analysis/types'
import { matchDigest, parsePrompt } from '@/lib/signals/deterministic-match'

const digest = (patch: Partial<SessionDigest> = {}): SessionDigest => ({
  durationMs: 60_000,
  pages: [
    { url: 'https://shop.example.com/', pathPattern: '/', at: 1 },
    { url: 'https://shop.example.com/checkout/payment?step=2', pathPattern: '/checkout/payment', at: 2 },
  ],
  clicks: [
    {
      text: 'Apply coupon',
      selector: 'button#coupon',
      url: 'https://shop.example.com/checkout/payment',
      at: 3,
    },
  ],
  inputs: [{ field: 'Coupon code', length: 8, url: 'https://shop.example.com/checkout/payment', at: 4 }],
  errors: [],
  networkFailures: [],
  rageClicks: [],
  deadClicks: [],
  ...patch,
})

describe('deterministic signal matcher', () => {
  it('reads friction words, paths and keywords from the prompt', () => {
    expect(parsePrompt('Users who hit an error on /checkout/ after applying a coupon')).toEqual({
      conditions: ['error'],
      paths: ['/checkout'],
      keywords: ['applying', 'coupon'],
    })
  })

  it('matches when every condition and path holds and a keyword is found', () => {
    const withError = digest({
      errors: [{ message: 'TypeError: coupon is undefined', url: '/checkout/payment', at: 5 }],
    })
    expect(matchDigest(parsePrompt('error on /checkout with coupon'), withError)).toEqual({
      matched: true,
      evidence: { conditions: ['error'], paths: ['/checkout'], keywords: ['coupon'] },
    })
    expect(matchDigest(parsePrompt('error on /checkout with coupon'), digest()).matched).toBe(false)
    expect(matchDigest(parsePrompt('error on /account'), withError).matched).toBe(false)
  })

  it('recognises rage, dead and failed-request sessions', () => {
    const rage = digest({ rageClicks: [{ text: 'Save', selector: 'button', url: '/', at: 1 }] })
    expect(matchDigest(parsePrompt('rage clicks'), rage).matched).toBe(true)
    expect(matchDigest(parsePrompt('rage clicks'), digest()).matched).toBe(false)
    expect(
      matchDigest(parsePrompt('unresponsive buttons'), digest({ deadClicks: rage.rageClicks })).matched,
    ).toBe(true)
    const failed = digest({ networkFailures: [{ method: 'POST', url: '/api/pay', status: 500, at: 1 }] })
    expect(matchDigest(parsePrompt('payment request failed'), failed).matched).toBe(true)
  })

  it('a path matches the page and pages below it, not a longer name', () => {
    expect(matchDigest(parsePrompt('/checkout'), digest()).matched).toBe(true)
    expect(matchDigest(parsePrompt('/check'), digest()).matched).toBe(false)
  })

  it('never matches an empty or stopword-only prompt', () => {
    expect(matchDigest(parsePrompt('users who'), digest()).matched).toBe(false)
    expect(matchDigest(parsePrompt(''), digest()).matched).toBe(false)
  })
})
