import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { safeCallbackPath } from '@/lib/auth/callback-url'
import { getAuthOptions } from '@/lib/auth/options'
import { fuzzRuns, hasControlCharacter, hostileString } from '../helpers/fuzz'

/**
 * Where a browser goes after signing in: the login page's `callbackUrl` (safeCallbackPath,
 * used by app/login/page.tsx for `redirect()` and the form's `router.replace()`) and
 * next-auth's redirect callback. For any string at all, the answer must be a same-origin
 * relative path: a browser resolving it against our origin stays on our origin.
 */

const BASE_URL = 'http://localhost:3000'

/** Pieces attackers combine: schemes, slashes and backslashes, dot segments, encodings, CR/LF. */
const PIECES = [
  '/',
  '//',
  '\\',
  '/\\',
  '\\/',
  '.',
  '..',
  '/./',
  '/../',
  '%2f',
  '%2F',
  '%5c',
  '%2e',
  '%2e%2e',
  '%0d%0a',
  '%09',
  '\r',
  '\n',
  '\t',
  ' ',
  '\u3000',
  '\uff0f',
  '@',
  ':',
  '?',
  '#',
  '&',
  'evil.example',
  'evil.example:443',
  'javascript:',
  'JaVaScRiPt:',
  'data:text/html,',
  'https:',
  'http:',
  'https://evil.example',
  'http://localhost:3000',
  'http://localhost:3000.evil.example',
  'http://localhost:3000@evil.example',
  'issues',
  'oauth/authorize?x=1',
  'alert(1)',
] as const

/** A callbackUrl: pieces glued together, sometimes around an arbitrary string. */
const callbackUrl: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 7 }).map((p) => p.join('')),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.array(fc.constantFrom(...PIECES), { maxLength: 3 }), hostileString)
      .map(([p, s]) => `${p.join('')}${s}`),
  },
  { weight: 1, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
)

/** Same-origin relative: resolved against any origin, it stays there; nothing to split a header with. */
function expectSameOriginPath(path: string, input: string): void {
  const why = `${JSON.stringify(input)} → ${JSON.stringify(path)}`
  expect(path.startsWith('/'), why).toBe(true)
  expect(path.startsWith('//'), why).toBe(false)
  expect(path.startsWith('/\\'), why).toBe(false)
  expect(hasControlCharacter(path), why).toBe(false)
  for (const origin of ['https://app.example', BASE_URL])
    expect(new URL(path, origin).origin, why).toBe(origin)
}

describe('safeCallbackPath (login page callbackUrl)', () => {
  it('always answers a same-origin relative path, and answers it unchanged when given it again', () => {
    fc.assert(
      fc.property(callbackUrl, (input) => {
        const path = safeCallbackPath(input)
        expectSameOriginPath(path, input)
        expect(safeCallbackPath(path)).toBe(path)
      }),
      {
        ...fuzzRuns(2000),
        examples: [
          ['/a/..//evil.example'],
          ['/.//evil.example'],
          ['/%2e%2e//evil.example'],
          ['/x/../\\evil.example'],
          ['/./\\evil.example'],
        ],
      },
    )
  })

  it('keeps an ordinary dashboard path with its query as it is', () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/)
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        segment,
        segment,
        (parts, key, value) => {
          const path = `/${parts.join('/')}?${key}=${value}`
          expect(safeCallbackPath(path)).toBe(path)
        },
      ),
      fuzzRuns(300),
    )
  })
})

describe("next-auth's redirect callback", () => {
  const redirect = getAuthOptions().callbacks!.redirect!

  it('always answers an address on our own origin, whatever url it is asked for', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          callbackUrl,
          callbackUrl.map((s) => `${BASE_URL}${s}`),
          callbackUrl.map((s) => `${BASE_URL}/${s}`),
        ),
        async (url) => {
          const answer = await redirect({ url, baseUrl: BASE_URL })
          const why = `${JSON.stringify(url)} → ${JSON.stringify(answer)}`
          // An absolute address: `http://localhost:3000//x` is still ours, so only the origin
          // and the absence of header-splitting characters matter here.
          expect(answer.startsWith(`${BASE_URL}/`), why).toBe(true)
          expect(new URL(answer).origin, why).toBe(BASE_URL)
          expect(hasControlCharacter(answer), why).toBe(false)
        },
      ),
      {
        ...fuzzRuns(1000),
        examples: [
          ['http://localhost:3000.evil.example/x'],
          ['http://localhost:3000@evil.example'],
          ['/a/..//evil.example'],
        ],
      },
    )
  })
})
