import { describe, expect, it } from 'vitest'
import {
  BODY_SECRET_WORDS,
  bodyRules,
  isTextualType,
  markerStart,
  PARSE_LIMIT,
  REDACTED,
  redactBody,
  redactHeaders,
  redactJsonPairs,
  redactValues,
  SecretNames,
  TRUNCATED_PREFIX,
} from '@/sdk/src/network-details/redact'

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlX2hlcmU'
const CARD = '4111111111111111'
const rules = bodyRules([], 10_000)
const names = new SecretNames(BODY_SECRET_WORDS)

describe('secret names', () => {
  it('match by whole words and runs of words, not inside words', () => {
    for (const key of [
      'password',
      'userPassword',
      'access_token',
      'refresh-token',
      'id_token',
      'client_secret',
      'X-Api-Key',
      'apiKey',
      'api_key',
      'private_key',
      'card_number',
      'cardNumber',
      'creditCardNumber',
      'cvv2',
      'ssn',
      'otp',
      'pin',
      'sessionId',
      'credentials',
      'signature',
      'jwt',
    ])
      expect(names.isSecret(key), key).toBe(true)
    for (const key of [
      'monkey',
      'keyboard',
      'passenger',
      'number',
      'code',
      'author',
      'spinner',
      'tokenizer',
      'id',
      'name',
    ])
      expect(names.isSecret(key), key).toBe(false)
  })

  it('take extra words in any spelling, and treat absurdly long keys as secret', () => {
    const extra = new SecretNames(BODY_SECRET_WORDS, ['national_id', 'Iban'])
    expect(extra.isSecret('nationalId')).toBe(true)
    expect(extra.isSecret('user_iban')).toBe(true)
    expect(names.isSecret('nationalId')).toBe(false)
    expect(names.isSecret('a'.repeat(300))).toBe(true)
  })
})

describe('redactValues', () => {
  it('replaces JWTs and Luhn-valid card numbers anywhere in a string', () => {
    expect(redactValues(`Bearer ${JWT} rest`)).toBe(`Bearer ${REDACTED} rest`)
    expect(redactValues(`card ${CARD}.`)).toBe(`card ${REDACTED}.`)
    expect(redactValues('4111 1111 1111 1111 and 4111-1111-1111-1111')).toBe(`${REDACTED} and ${REDACTED}`)
  })

  it('keeps numbers that are not cards: Luhn-invalid, epoch milliseconds, too long', () => {
    expect(redactValues('4111111111111112')).toBe('4111111111111112')
    expect(redactValues('at 1732612345678 ms')).toBe('at 1732612345678 ms')
    const long = '4'.repeat(40)
    expect(redactValues(long)).toBe(long)
  })

  it('scans a long run of digits and JWT-like noise in one pass (a quadratic scan would time the test out)', () => {
    const digits = '5'.repeat(2_000_000)
    const noise = 'eyJ'.repeat(300_000)
    const dots = '-eyJa.bb!'.repeat(200_000)
    // Compared as booleans: a failure must not print megabytes.
    expect(redactValues(digits) === digits).toBe(true)
    expect(redactValues(noise) === noise).toBe(true)
    expect(redactValues(dots) === dots).toBe(true)
  })
})

describe('redactHeaders', () => {
  const pairs: [string, string][] = [
    ['Authorization', 'Bearer abc'],
    ['Proxy-Authorization', 'Basic abc'],
    ['Cookie', 'sid=1'],
    ['Set-Cookie', 'sid=1'],
    ['X-Api-Key', 'k'],
    ['X-Auth-Token', 't'],
    ['X-CSRFToken', 'c'],
    ['X-Session-Id', 's'],
    ['Content-Type', 'application/json'],
    ['X-Request-Id', `r-${JWT}`],
  ]

  it('keeps allowlisted names only, never credentials or secret-named ones, whatever the list says', () => {
    const allow = pairs.map(([name]) => name.toLowerCase())
    expect(redactHeaders(pairs, { allow, names })).toEqual({
      'content-type': 'application/json',
      'x-request-id': `r-${REDACTED}`,
    })
    expect(redactHeaders(pairs, { allow: ['content-type'], names })).toEqual({
      'content-type': 'application/json',
    })
  })

  it('ignores a __proto__ header name', () => {
    const kept = redactHeaders([['__proto__', 'x']], { allow: null, names })
    expect(Object.keys(kept)).toEqual([])
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype)
  })
})

describe('redactBody', () => {
  it('redacts secret keys of JSON at any depth and JWTs/cards in other values', () => {
    const body = JSON.stringify({
      user: { email: 'a@b.c', password: 'hunter2', nested: [{ token: 'tok-1' }] },
      card_number: CARD,
      note: `paid with ${CARD}`,
      id: JWT,
      credentials: { user: 'u', pass: 'p' },
      has_password: true,
      pin: null,
    })
    expect(JSON.parse(redactBody(body, rules))).toEqual({
      user: { email: 'a@b.c', password: REDACTED, nested: [{ token: REDACTED }] },
      card_number: REDACTED,
      note: `paid with ${REDACTED}`,
      id: REDACTED,
      credentials: REDACTED,
      has_password: true,
      pin: null,
    })
  })

  it('returns a body without secrets as the same string, formatting kept', () => {
    const body = '{ "code": "NOT_FOUND",  "message": "no such order" }'
    expect(redactBody(body, rules)).toBe(body)
  })

  it('is idempotent on its own output, also when it cut the body', () => {
    const small = bodyRules(['iban'], 50)
    for (const body of [
      JSON.stringify({ password: 'x', items: Array.from({ length: 20 }, (_, i) => ({ i, token: `t${i}` })) }),
      'grant_type=password&password=hunter2&username=ada',
      `plain text with ${JWT} and more text that is long enough to be cut`,
    ]) {
      const once = redactBody(body, small)
      expect(redactBody(once, small)).toBe(once)
      expect(redactBody(once, bodyRules(['iban'], 65_536))).toBe(once)
    }
  })

  it('redacts form-urlencoded bodies by parameter, OAuth code included', () => {
    expect(redactBody('grant_type=authorization_code&code=abc&client_secret=s&redirect_uri=x', rules)).toBe(
      `grant_type=authorization_code&code=${REDACTED}&client_secret=${REDACTED}&redirect_uri=x`,
    )
  })

  it('cuts after redaction, with a marker that names the whole length', () => {
    const body = JSON.stringify({ token: 'secret-value', text: 'x'.repeat(200) })
    const cut = redactBody(body, bodyRules([], 40))
    expect(cut.startsWith(`{"token":"${REDACTED}"`)).toBe(true)
    expect(cut).toContain(TRUNCATED_PREFIX)
    expect(markerStart(cut)).toBe(40)
    expect(cut).not.toContain('secret-value')
  })

  it('scans JSON that cannot be parsed (cut, malformed, too large) for secret pairs', () => {
    expect(redactBody('{"password": "hunter2", "user": "ada", "pin": 1234, "items": [', rules)).toBe(
      `{"password": "${REDACTED}", "user": "ada", "pin": "${REDACTED}", "items": [`,
    )
    expect(redactBody('{"token": "abc', rules)).toBe(`{"token": "${REDACTED}"`)
    expect(redactBody('{"pass\\u0077ord": "x", broken', rules)).toBe(
      `{"pass\\u0077ord": "${REDACTED}", broken`,
    )
    const huge = `{"filler": "${'a'.repeat(PARSE_LIMIT)}", "access_token": "tok"}`
    const out = redactBody(huge, bodyRules([], 65_536))
    expect(out).not.toContain('"tok"')
    expect(out.length).toBeLessThan(65_536 + 64)
  })

  it('survives hostile input: deep nesting, __proto__ keys, huge strings', () => {
    const deep = `${'['.repeat(100_000)}{"token":"t"}${']'.repeat(100_000)}`
    const out = redactBody(deep, bodyRules([], PARSE_LIMIT))
    expect(out).not.toContain('"t"')

    const proto = '{"__proto__": {"password": "x", "isAdmin": true}, "a": 1}'
    const cleaned = JSON.parse(redactBody(proto, rules)) as Record<string, unknown>
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined()
    expect(Object.getOwnPropertyDescriptor(cleaned, '__proto__')?.value).toEqual({
      password: REDACTED,
      isAdmin: true,
    })

    const protoSecret = redactBody('{"__proto__": "x"}', bodyRules(['proto'], 100))
    expect(protoSecret).toBe(`{"__proto__":"${REDACTED}"}`)
    expect(({} as Record<string, unknown>).constructor).toBe(Object)

    const quotes = '"'.repeat(500_000)
    expect(redactBody(quotes, rules)).toContain(TRUNCATED_PREFIX)
    expect(redactBody('{"a":', rules)).toBe('{"a":')
  })

  it('marks a capped read as longer than what was read', () => {
    const out = redactBody('{"token": "abc", "x": "yyyy', bodyRules([], 100), 27)
    expect(out).toBe(`{"token": "${REDACTED}", "x": "yyyy${TRUNCATED_PREFIX}more than 27 characters]`)
  })
})

describe('redactJsonPairs', () => {
  it('leaves strings in arrays and booleans alone', () => {
    const text = '["password", "token"], {"otp": true}'
    expect(redactJsonPairs(text, names)).toBe(text)
  })
})

describe('isTextualType', () => {
  it('takes text and JSON types only', () => {
    for (const type of [
      'text/plain',
      'text/html; charset=utf-8',
      'application/json',
      'application/problem+json',
      'application/x-www-form-urlencoded',
      'application/xml',
      'image/svg+xml',
      'application/javascript',
    ])
      expect(isTextualType(type), type).toBe(true)
    for (const type of ['image/png', 'application/octet-stream', 'multipart/form-data', null, ''])
      expect(isTextualType(type), String(type)).toBe(false)
  })
})

describe('header values', () => {
  it('are cut at 2000 characters once; a second pass keeps the cut value', () => {
    const once = redactHeaders([['x-trace', 'a'.repeat(5000)]], { allow: null, names })
    expect(once['x-trace']!.startsWith(`${'a'.repeat(2000)}${TRUNCATED_PREFIX}5000`)).toBe(true)
    expect(redactHeaders(Object.entries(once), { allow: null, names })).toEqual(once)
  })
})
