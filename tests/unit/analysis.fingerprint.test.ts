/**
 * Fingerprints (docs/design/analysis.md §4.4): the same problem in another session, short or long, another
 * build or other ids, hashes the same; a different problem does not.
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { analyzeEvents } from '@/lib/analysis'
import {
  clickParts,
  consoleErrorParts,
  fingerprint,
  jsErrorParts,
  networkParts,
  statusClass,
} from '@/lib/analysis/fingerprint'
import { parseFrames } from '@/lib/analysis/stack'
import { el, page, SessionBuilder, txt } from '@/lib/analysis/testing/events'

const ORIGIN = 'https://shop.example.com'
const PRODUCT = page([
  el(10, 'button', { id: 'buy', class: 'btn' }, [txt(11, 'Buy now')]),
  el(12, 'div', { id: 'out' }),
])
const HOME = page([el(20, 'a', { href: '/products/42' }, [txt(21, 'Tent')]), el(22, 'input', { id: 'q' })])

function trace(line: number, hash: string, fn = 'addToCart'): string[] {
  return [
    `${fn} (${ORIGIN}/assets/app.${hash}.js:${line}:14)`,
    `HTMLButtonElement.onBuyNow (${ORIGIN}/assets/app.${hash}.js:21:3)`,
  ]
}

async function jsFingerprint(b: SessionBuilder): Promise<string> {
  const { findings } = await analyzeEvents(b.events)
  const errors = findings.filter((f) => f.kind === 'js_error')
  expect(errors).toHaveLength(1)
  return errors[0]!.fingerprint
}

describe('fingerprint()', () => {
  it('is sha256("v1|" + kind + "|" + parts.join("|")) in hex', () => {
    const expected = createHash('sha256').update('v1|js_error|TypeError|x|fn /a.js').digest('hex')
    expect(fingerprint('js_error', ['TypeError', 'x', 'fn /a.js'])).toBe(expected)
  })
})

describe('js_error fingerprints', () => {
  const message = "TypeError: Cannot read properties of undefined (reading 'price')"

  it('are equal for the same error from the same function in a short and a long session', async () => {
    const short = new SessionBuilder()
      .load(`${ORIGIN}/products/42`, PRODUCT)
      .wait(800)
      .click(10)
      .uncaught(message, trace(13, '3f9a2c1d'))
    const long = new SessionBuilder(1_900_000_000_000)
      .load(`${ORIGIN}/`, HOME)
      .wait(2000)
      .click(22)
      .type(22, 'tent')
    for (let i = 0; i < 200; i++) long.mouseMove().wait(50)
    long
      .click(21)
      .load(`${ORIGIN}/products/7`, PRODUCT)
      .wait(4000)
      .console('warn', ['slow'])
      .request({ url: `${ORIGIN}/api/cart`, status: 200 })
      .click(10)
      .uncaught(message, trace(13, '3f9a2c1d'))
      .wait(60_000)
      .mouseMove()
    expect(await jsFingerprint(short)).toBe(await jsFingerprint(long))
  })

  it('ignore line and column numbers and build hashes', async () => {
    const a = new SessionBuilder()
      .load(`${ORIGIN}/products/42`, PRODUCT)
      .uncaught(message, trace(13, '3f9a2c1d'))
    const b = new SessionBuilder()
      .load(`${ORIGIN}/products/7`, PRODUCT)
      .uncaught(message, trace(97, '8b1e0f27'))
    expect(await jsFingerprint(a)).toBe(await jsFingerprint(b))
  })

  it('differ for a different property name in the message', async () => {
    const a = new SessionBuilder()
      .load(`${ORIGIN}/products/42`, PRODUCT)
      .uncaught(message, trace(13, '3f9a2c1d'))
    const b = new SessionBuilder()
      .load(`${ORIGIN}/products/42`, PRODUCT)
      .uncaught("TypeError: Cannot read properties of undefined (reading 'name')", trace(13, '3f9a2c1d'))
    expect(await jsFingerprint(a)).not.toBe(await jsFingerprint(b))
  })

  it('differ for a different function or error type', () => {
    const page = `${ORIGIN}/p`
    const base = jsErrorParts(message, parseFrames(trace(13, 'aaaa1111')), page, '/p')
    expect(jsErrorParts(message, parseFrames(trace(13, 'aaaa1111', 'renderCart')), page, '/p')).not.toEqual(
      base,
    )
    expect(
      jsErrorParts(
        message.replace('TypeError', 'RangeError'),
        parseFrames(trace(13, 'aaaa1111')),
        page,
        '/p',
      ),
    ).not.toEqual(base)
    expect(base).toEqual([
      'TypeError',
      "Cannot read properties of undefined (reading 'price')",
      'addToCart /assets/app.*.js',
    ])
  })

  it('use ids-free message + page pattern when there is no stack', () => {
    expect(jsErrorParts('Error: Order 123 failed', [], `${ORIGIN}/orders/123`, '/orders/:id')).toEqual([
      'Error',
      'Order <n> failed',
      '/orders/:id',
    ])
  })
})

describe('other kinds', () => {
  it('console_error: normalised first argument + page pattern', () => {
    expect(consoleErrorParts('Order 123 failed for bob@example.com', '/orders/:id')).toEqual([
      'Order <n> failed for <email>',
      '/orders/:id',
    ])
  })

  it('network_error: method, host + path pattern, status class', () => {
    expect(networkParts('put', 'API.example.com', '/v1/orders/:id', 503)).toEqual([
      'PUT',
      'api.example.com/v1/orders/:id',
      '5xx',
    ])
    expect([statusClass(500), statusClass(503), statusClass(0), statusClass(429)]).toEqual([
      '5xx',
      '5xx',
      'failed',
      '429',
    ])
  })

  it('rage/dead clicks: page pattern, stable selector, normalised text', () => {
    expect(clickParts('/cart', '#checkout', 'Checkout (3 items)')).toEqual([
      '/cart',
      '#checkout',
      'checkout (<n> items)',
    ])
  })

  it('dead clicks survive class churn and generated ids across sessions', async () => {
    const run = async (id: string, classes: string, count: number) => {
      const doc = page([el(10, 'button', { id, class: classes }, [txt(11, `Cart (${count})`)])])
      const b = new SessionBuilder()
        .load(`${ORIGIN}/products/${count}`, doc)
        .wait(500)
        .click(11)
        .wait(31_000)
        .mouseMove()
      const { findings } = await analyzeEvents(b.events)
      return findings[0]!.fingerprint
    }
    expect(await run(':r1:', 'cart-button css-1x2y3z', 1)).toBe(
      await run(':r7:', 'cart-button css-9q8w7e active', 3),
    )
    expect(await run('cart', 'a', 1)).toBe(await run('cart', 'b', 2))
    expect(await run('cart', 'a', 1)).not.toBe(await run('basket', 'a', 1))
  })
})
