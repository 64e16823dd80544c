/** Normalisation, URL patterns and stack parsing (docs/design/analysis.md §4.4, §1.7). */
import { describe, expect, it } from 'vitest'
import {
  consoleArgText,
  decodeConsoleArg,
  normaliseLabel,
  normaliseMessage,
  splitErrorType,
  stripUncaught,
} from '@/lib/analysis/normalize'
import { normaliseFilePath, parseFrame, parseFrames, topInAppFrame } from '@/lib/analysis/stack'
import {
  displayUrl,
  isCriticalPath,
  isThirdParty,
  pathPattern,
  siteOf,
  splitRequestUrl,
} from '@/lib/analysis/url'

describe('normaliseMessage (§4.4)', () => {
  it('strips the Chromium uncaught prefixes', () => {
    expect(stripUncaught('Uncaught TypeError: x')).toBe('TypeError: x')
    expect(stripUncaught('Uncaught (in promise) Error: y')).toBe('Error: y')
    expect(normaliseMessage('Uncaught (in promise) Error: y')).toBe('Error: y')
  })

  it('keeps quoted property names, which carry the bug', () => {
    expect(normaliseMessage("Cannot read properties of undefined (reading 'price')")).toBe(
      "Cannot read properties of undefined (reading 'price')",
    )
  })

  it.each([
    ['Order 12345 not found', 'Order <n> not found'],
    ['retry 3 of 5', 'retry <n> of <n>'],
    ['user 0b6c1f4e-6f0e-4d6a-9a59-5e0b1b8d2c11 missing', 'user <uuid> missing'],
    ['token deadbeef12 expired', 'token <hex> expired'],
    ['mail to bob.smith+x@example.co.uk failed', 'mail to <email> failed'],
    ['GET https://api.example.com/v1/items?id=3 failed', 'GET <url> failed'],
    ['expired at 2024-05-01T10:22:33Z', 'expired at <date>'],
    ['  many\n\tspaces  ', 'many spaces'],
    ['"quoted message"', 'quoted message'],
  ])('%j → %j', (input, output) => {
    expect(normaliseMessage(input)).toBe(output)
  })

  it('leaves single digits inside identifiers alone', () => {
    expect(normaliseMessage('h1 element missing')).toBe('h1 element missing')
    expect(normaliseMessage('item22 missing')).toBe('item<n> missing')
  })

  it('normalises labels for fingerprints: case, counts, length', () => {
    expect(normaliseLabel('Cart (3)')).toBe('cart (<n>)')
    expect(normaliseLabel('x'.repeat(80))).toHaveLength(50)
  })

  it('splits the error type from the message', () => {
    expect(splitErrorType('Uncaught TypeError: boom')).toEqual({ type: 'TypeError', message: 'boom' })
    expect(splitErrorType('DOMException: denied')).toEqual({ type: 'DOMException', message: 'denied' })
    expect(splitErrorType('something odd')).toEqual({ type: 'Error', message: 'something odd' })
  })
})

describe('console arguments (§1.7: every argument JSON-stringified)', () => {
  it('decodes quoted strings and objects, keeps bare text', () => {
    expect(decodeConsoleArg('"\\"[cart] added\\""')).toBe('"[cart] added"')
    expect(decodeConsoleArg('"hello"')).toBe('hello')
    expect(decodeConsoleArg('{"code":42}')).toEqual({ code: 42 })
    expect(decodeConsoleArg('3')).toBe('3')
    expect(decodeConsoleArg('not json {')).toBe('not json {')
  })

  it('turns a stringified error object into `Name: message`', () => {
    expect(consoleArgText('{"name":"TypeError","message":"x","stack":"..."}')).toBe('TypeError: x')
    expect(consoleArgText('{"code":42}')).toBe('{"code":42}')
  })
})

describe('pathPattern (§4.4)', () => {
  it.each([
    ['/Orders/123/', '/orders/:id'],
    ['/products/42?size=m#reviews', '/products/:id'],
    ['/u/0b6c1f4e-6f0e-4d6a-9a59-5e0b1b8d2c11/settings', '/u/:uuid/settings'],
    ['/commit/3f9a2c1d9e', '/commit/:hash'],
    ['/invite/aB3dE5fG7hJ9kL1mN2', '/invite/:token'],
    ['/users/bob@example.com', '/users/:token'],
    ['/reports/2024-05-01', '/reports/:id'],
    ['https://shop.example.com/cart/', '/cart'],
    ['https://shop.example.com', '/'],
    ['/', '/'],
    ['/products/:id', '/products/:id'],
  ])('%s → %s', (input, output) => {
    expect(pathPattern(input)).toBe(output)
  })

  it('does not take words for hashes', () => {
    expect(pathPattern('/facade/deadbeef')).toBe('/facade/deadbeef')
    expect(pathPattern('/blog/introducing-session-replays')).toBe('/blog/introducing-session-replays')
  })
})

describe('URL helpers', () => {
  it('masks token-like query values in displayed URLs', () => {
    expect(displayUrl('https://x.test/p?page=2#top')).toBe('https://x.test/p?page=2')
    expect(displayUrl('https://x.test/reset?token=eyJhbGciOiJIUzI1NiJ9.abc&step=1')).toBe(
      'https://x.test/reset?token=…&step=1',
    )
    expect(displayUrl('https://x.test/a?email=bob%40x.com')).toBe('https://x.test/a?email=…')
  })

  it('splits request URLs, absolute or relative', () => {
    expect(splitRequestUrl('https://API.x.test/v1/a?b=1', 'https://x.test/')).toEqual({
      href: 'https://API.x.test/v1/a?b=1',
      host: 'api.x.test',
      path: '/v1/a',
    })
    expect(splitRequestUrl('/api/cart?x=1', 'https://x.test/cart')).toEqual({
      href: 'https://x.test/api/cart?x=1',
      host: 'x.test',
      path: '/api/cart',
    })
    expect(splitRequestUrl('api/cart', 'https://x.test/shop/').path).toBe('/shop/api/cart')
  })

  it('tells first-party from third-party by site', () => {
    expect(siteOf('api.shop.example.com')).toBe('example.com')
    expect(siteOf('www.shop.co.uk')).toBe('shop.co.uk')
    expect(siteOf('127.0.0.1:3000')).toBe('127.0.0.1')
    expect(isThirdParty('https://cdn.example.com/a.js', 'https://www.example.com/')).toBe(false)
    expect(isThirdParty('https://widgets.other.io/a.js', 'https://www.example.com/')).toBe(true)
  })

  it.each([
    ['/checkout', true],
    ['/cart', true],
    ['/api/payments/42', true],
    ['/account/billing', true],
    ['/orders/:id', true],
    ['/sign-up', true],
    ['/auth/callback', true],
    ['/login', true],
    ['/author/jane', false],
    ['/products', false],
    ['/pay/confirm', true],
  ])('isCriticalPath(%s) = %s (§4.5)', (path, critical) => {
    expect(isCriticalPath(path)).toBe(critical)
  })
})

describe('stack frames', () => {
  it('parses the console plugin format `fn (url:line:col)` (§1.7)', () => {
    expect(parseFrame('renderCart (https://shop.example/assets/app.js:88:14)')).toEqual({
      fn: 'renderCart',
      url: 'https://shop.example/assets/app.js',
    })
    expect(parseFrame('http://127.0.0.1:45651/account:37:19')).toEqual({
      fn: '',
      url: 'http://127.0.0.1:45651/account',
    })
  })

  it('parses V8 and Firefox stack strings, skipping the message line', () => {
    const v8 =
      "TypeError: Cannot read properties of undefined (reading 'price')\n    at addToCart (http://h/assets/app.3f9a2c1d.js:13:48)\n    at async HTMLButtonElement.onBuyNow (http://h/assets/app.3f9a2c1d.js:21:3)\n    at http://h/x.js:1:2"
    expect(parseFrames(v8)).toEqual([
      { fn: 'addToCart', url: 'http://h/assets/app.3f9a2c1d.js' },
      { fn: 'HTMLButtonElement.onBuyNow', url: 'http://h/assets/app.3f9a2c1d.js' },
      { fn: '', url: 'http://h/x.js' },
    ])
    expect(parseFrames('addToCart@http://h/app.js:13:48\n@http://h/app.js:2:1')).toEqual([
      { fn: 'addToCart', url: 'http://h/app.js' },
      { fn: '', url: 'http://h/app.js' },
    ])
  })

  it('picks the top frame from the page site, else the first frame', () => {
    const frames = parseFrames([
      'track (https://cdn.analytics.io/t.js:1:1)',
      'addToCart (https://www.shop.com/app.js:2:2)',
    ])
    expect(topInAppFrame(frames, 'https://shop.com/p')?.fn).toBe('addToCart')
    expect(topInAppFrame(frames.slice(0, 1), 'https://shop.com/p')?.fn).toBe('track')
  })

  it.each([
    ['https://cdn.x/assets/app.3f9a2c1d.js?v=2', '/assets/app.*.js'],
    ['http://h/assets/cart.5e7d9b21.js', '/assets/cart.*.js'],
    [
      'https://x/_next/static/chunks/pages/checkout-3f9a2c1d9e8b7a6c.js',
      '/_next/static/chunks/pages/checkout-*.js',
    ],
    ['https://x/_next/static/chunks/2c6e4c1a2b3d4e5f.js', '/_next/static/chunks/*.js'],
    ['https://x/_next/static/Xy7aB9cD1eF2gH3iJ4kL5/_buildManifest.js', '/_next/static/*/_buildManifest.js'],
    ['https://x/assets/index-BxKaZqWe.js', '/assets/index-*.js'],
    ['https://x/assets/Checkout-BxK3aZqW.js', '/assets/Checkout-*.js'],
    ['https://x/static/js/123.abcdef12.chunk.js', '/static/js/*.*.chunk.js'],
    ['https://x/js/app.js', '/js/app.js'],
  ])('normaliseFilePath(%s) = %s', (url, path) => {
    expect(normaliseFilePath(url)).toBe(path)
  })
})
