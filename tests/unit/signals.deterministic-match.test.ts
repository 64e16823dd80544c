import { describe, expect, it } from 'vitest'
import type { SessionDigest } from '@/lib/analysis/types'
import { describePrompt } from '@/lib/signals/describe-prompt'
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

  // Issue 15: "failed request on /api/pay" matched nothing although the session had exactly it.
  it('a path also matches the URL of a failed request, at or below it', () => {
    const failed = digest({
      networkFailures: [{ method: 'POST', url: 'https://shop.example.com/api/pay?x=1', status: 500, at: 5 }],
    })
    const prompt = parsePrompt('failed request on /api/pay')
    expect(prompt).toEqual({ conditions: ['network'], paths: ['/api/pay'], keywords: [] })
    expect(matchDigest(prompt, failed)).toEqual({
      matched: true,
      evidence: { conditions: ['network'], paths: ['/api/pay'], keywords: [] },
    })
    expect(matchDigest(parsePrompt('failed request on /api'), failed).matched).toBe(true)
    expect(matchDigest(parsePrompt('failed request on /api/payment'), failed).matched).toBe(false)
    expect(matchDigest(parsePrompt('failed request on /api/refund'), failed).matched).toBe(false)
    // A page still counts for a path, as before.
    expect(matchDigest(parsePrompt('/checkout/payment'), failed).matched).toBe(true)
  })
})

describe('how a prompt is read, in plain words', () => {
  it('says every condition a session must meet', () => {
    expect(
      describePrompt(parsePrompt('Rage or dead clicks and errors on /checkout with the coupon')),
    ).toEqual({
      conditions: [
        'the user rage-clicked (clicked one element fast, with no response)',
        'a click got no response',
        'the session had a JavaScript error',
        'the user visited /checkout or a page below it, or a request to it failed',
        '“coupon” appears in a page URL, clicked text, an error message or a failed request’s URL',
      ],
      checkable: true,
    })
    expect(describePrompt(parsePrompt('shipping coupon')).conditions).toEqual([
      'at least one of “shipping”, “coupon” appears in a page URL, clicked text, an error message or a failed request’s URL',
    ])
  })

  it('says when nothing can be checked, and stays short for a long prompt', () => {
    expect(describePrompt(parsePrompt('why do they go'))).toEqual({ conditions: [], checkable: false })
    const many = Array.from(
      { length: 300 },
      (_, i) => `/p${i} word${String.fromCharCode(97 + (i % 26))}${i}`,
    ).join(' ')
    const reading = describePrompt(parsePrompt(many))
    expect(reading.conditions).toHaveLength(22)
    expect(reading.conditions[20]).toBe('… and 280 more paths')
    expect(reading.conditions[21]).toMatch(/ and 280 more appears in /)
  })
})
