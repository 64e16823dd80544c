import { describe, expect, it } from 'vitest'
import { boundedJson, createDetailCapturer } from '@/sdk/src/network-details/capture'
import {
  BODY_SECRET_WORDS,
  bodyRules,
  contentTypeReason,
  isTextualType,
  markerStart,
  omissionReason,
  PARAM_SECRET_WORDS,
  PARSE_LIMIT,
  REDACTED,
  redactBody,
  redactHeaders,
  redactJsonPairs,
  redactValues,
  SecretNames,
  TRUNCATED_PREFIX,
} from '@/sdk/src/network-details/redact'
import { redactUrl } from '@/sdk/src/plugins/network'
import { SECRET_TEXT_BODIES } from '../fixtures/secret-text-bodies'

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
      // Written as one word, or numbered: a strong word at the end is enough.
      'newpassword',
      'oldpassword',
      'accesstoken',
      'clientsecret',
      'password1',
      'userapikey',
      'new_password12',
      'token2',
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

  it('redacts every string and number inside an array or object under a secret key, keys too', () => {
    expect(redactJsonPairs('{"session":["abc", 12, true], "user": "ada"', names)).toBe(
      `{"session":["${REDACTED}", "${REDACTED}", true], "user": "ada"`,
    )
    expect(redactJsonPairs('{"tokens":["abc"],"auth":{"x":"y","n":{"z":-1.5e3}},"id":"k"', names)).toBe(
      `{"tokens":["${REDACTED}"],"auth":{"${REDACTED}":"${REDACTED}","${REDACTED}":{"${REDACTED}":"${REDACTED}"}},"id":"k"`,
    )
    // Brackets inside strings do not end the value; an unclosed value is redacted to the end.
    expect(redactJsonPairs('{"secret":["a]b", "c', names)).toBe(`{"secret":["${REDACTED}", "${REDACTED}"`)
    expect(redactJsonPairs('{"secret":[1, {"k": 2', names)).toBe(
      `{"secret":["${REDACTED}", {"${REDACTED}": "${REDACTED}"`,
    )
  })
})

describe('redactBody leaks found in review', () => {
  it("does not keep a repeated key's hidden secret: the clean parsed tree is written instead", () => {
    expect(redactBody('{"user":{"password":"hunter2"},"user":1}', rules)).toBe('{"user":1}')
    expect(redactBody('{"a":{"token":[1]},"a":2, "b": 3}', rules)).toBe('{"a":2,"b":3}')
  })

  it('redacts form bodies whatever characters they hold, by content type or by shape', () => {
    expect(redactBody('user=bob&password=hunter2\n', rules)).toBe(`user=bob&password=${REDACTED}\n`)
    expect(redactBody('user=bob smith&password=hunter2', rules)).toBe(`user=bob smith&password=${REDACTED}`)
    expect(redactBody('password=a"b', rules)).toBe(`password=${REDACTED}`)
    expect(redactBody('a=1\npassword=x y', rules)).toBe(`a=1\npassword=${REDACTED}`)
    const form = 'application/x-www-form-urlencoded; charset=UTF-8'
    expect(redactBody('{weird}&password=x', rules, undefined, form)).toBe(`{weird}&password=${REDACTED}`)
    // Cut or capped: parameters still redacted, a cut last value to its end.
    expect(redactBody('user=bob&password=hunt', bodyRules([], 100), 22)).toBe(
      `user=bob&password=${REDACTED}${TRUNCATED_PREFIX}more than 22 characters]`,
    )
    const cut = redactBody(`user=b o b&token=${'x'.repeat(50)}`, bodyRules([], 20))
    expect(cut.startsWith(`user=b o b&token=${REDACTED}`.slice(0, 20))).toBe(true)
    expect(cut).not.toContain('xxx')
    expect(redactBody(cut, bodyRules([], 20))).toBe(cut)
  })

  it('redacts card numbers written as JSON numbers, also past exact integers', () => {
    expect(redactBody(`{"card":${CARD}}`, rules)).toBe(`{"card":"${REDACTED}"}`)
    expect(redactBody(`[${CARD}, 1732612345678, 42]`, rules)).toBe(`["${REDACTED}",1732612345678,42]`)
    expect(redactBody('{"n":4000000000000000001}', rules)).toBe(`{"n":"${REDACTED}"}`)
    expect(redactBody('{"n":9000000000000000001}', rules)).toBe('{"n":9000000000000000001}')
  })

  it('redacts JSON held inside string values, a bounded number of levels deep', () => {
    const inner = JSON.stringify({ data: JSON.stringify({ password: 'hunter2', ok: 1 }) })
    const out = redactBody(inner, rules)
    expect(out).not.toContain('hunter2')
    expect(JSON.parse(JSON.parse(out).data as string)).toEqual({ password: REDACTED, ok: 1 })
    expect(redactBody(out, rules)).toBe(out)
    const plain = JSON.stringify({ data: '{"ok":1}' })
    expect(redactBody(plain, rules)).toBe(plain)
  })

  it('redacts arrays and objects under a secret key in text that is not parsed', () => {
    expect(redactBody('{"session":["abc"]', rules, 2_000_000)).toBe(
      `{"session":["${REDACTED}"]${TRUNCATED_PREFIX}more than 2000000 characters]`,
    )
    const big = `{"pad":"${'a'.repeat(PARSE_LIMIT)}","secret":["s3cr3t"],"password":{"v":"pw"}}`
    const out = redactBody(big, bodyRules([], 70_000))
    expect(out.includes('s3cr3t') || out.includes('"pw"')).toBe(false)
    const deep = `${'['.repeat(70)}{"tokens":["abc"],"auth":{"x":"y"}}${']'.repeat(70)}`
    expect(redactBody(deep, rules)).toBe(
      `${'['.repeat(70)}{"tokens":["${REDACTED}"],"auth":{"${REDACTED}":"${REDACTED}"}}${']'.repeat(70)}`,
    )
  })

  it('stays idempotent on the new cases, cut or not', () => {
    const small = bodyRules([], 30)
    for (const body of [
      '{"user":{"password":"hunter2"},"user":1}',
      'a b=1&password=a"b&x=y y',
      `{"secret":["${'s'.repeat(40)}", 1, 2]`,
      `{"card":${CARD},"data":"{\\"token\\":\\"t\\"}"}`,
    ]) {
      for (const r of [rules, small]) {
        const once = redactBody(body, r)
        expect(redactBody(once, r), body).toBe(once)
      }
    }
  })
})

describe('secrets outside JSON keys: XML, SOAP, GraphQL arguments, key: value and key=value', () => {
  it('are redacted in every carrier, and a second pass changes nothing', () => {
    for (const c of SECRET_TEXT_BODIES) {
      const once = redactBody(c.body, rules, undefined, c.contentType)
      expect(once, c.carrier).toBe(c.redacted)
      for (const secret of c.secrets) expect(once, c.carrier).not.toContain(secret)
      expect(redactBody(once, rules, undefined, c.contentType), c.carrier).toBe(once)
    }
  })

  it('are redacted by the recorder before anything is emitted, request and response', async () => {
    const capturer = createDetailCapturer({
      urls: ['/api/'],
      headers: ['content-type'],
      requestBody: true,
      responseBody: true,
      maxBodyBytes: 10_000,
      redactKeys: [],
      failuresOnly: false,
    })
    for (const c of SECRET_TEXT_BODIES) {
      const url = 'https://a.example/api/login'
      const call = capturer.fetch(url, url, {
        method: 'POST',
        body: c.body,
        headers: { 'content-type': c.contentType },
      })!
      const details = await call.response(
        new Response(c.body, { headers: { 'content-type': c.contentType } }),
      )
      expect([details.requestBody, details.responseBody], c.carrier).toEqual([c.redacted, c.redacted])
    }
  })

  it('redact a value the cut ended to its end, also still JSON-escaped in a cut JSON body', () => {
    const capped = (text: string) => redactBody(text, bodyRules([], 1000), text.length + 1)
    const marker = (text: string) => `${TRUNCATED_PREFIX}more than ${text.length + 1} characters]`
    for (const [cut, clean] of [
      ['<r><password>hunt', `<r><password>${REDACTED}`],
      ['login(password: "hun\\"te', `login(password: "${REDACTED}`],
      ['a: 1\ntoken: ab', `a: 1\ntoken: ${REDACTED}`],
      [
        String.raw`{"query":"{ login(password: \"hun\\\"ter2\") { id } }", "x": "y`,
        String.raw`{"query":"{ login(password: \"${REDACTED}\") { id } }", "x": "y`,
      ],
      [
        String.raw`{"query":"{ login(password: \"hun\\\"te`,
        String.raw`{"query":"{ login(password: \"${REDACTED}`,
      ],
    ] as const) {
      expect(capped(cut)).toBe(`${clean}${marker(cut)}`)
      expect(capped(cut)).not.toContain('hun')
    }
  })

  it('keep what is not a secret value: other names, variables, enums, selections, namespaces', () => {
    for (const text of [
      'mutation { login(password: $pw, role: ADMIN) { token session { id } } }',
      '<passenger>ada</passenger><keyboard layout="us"/>',
      '<a:auth xmlns:auth="urn:auth"/>',
      'Error: the token expired\nsee https://a.example/docs',
      'Your password: must have 8 characters',
    ])
      expect(redactBody(text, rules, undefined, 'text/plain'), text).toBe(text)
  })

  it('scan hostile text in one pass (a quadratic scan would time the test out)', () => {
    const mb = 1_000_000
    for (const hostile of [
      '<password>'.repeat(mb / 10),
      `<password>${'</password'.repeat(mb / 10)}`,
      '<a'.repeat(mb / 2),
      `<${'a'.repeat(mb)}>x`,
      `otp: ${'"""\\'.repeat(mb / 4)}`,
      `password: \\"${'\\\\'.repeat(mb / 2)}`,
      'password=token='.repeat(mb / 15),
      `x ${'password: '.repeat(mb / 10)}`,
      '- '.repeat(mb / 2),
      `${'a'.repeat(mb)}:`,
    ]) {
      const out = redactBody(hostile, bodyRules([], 100), hostile.length)
      expect(out.length).toBeLessThan(200)
    }
  })
})

describe('omission reasons', () => {
  it('keep the fixed set and media types of token characters only', () => {
    for (const reason of ['FormData', 'binary', 'unreadable', 'over 1048576 bytes', 'content-type image/png'])
      expect(omissionReason(reason)).toBe(reason)
    expect(contentTypeReason('Image/PNG; name="x"')).toBe('content-type image/png')
    expect(contentTypeReason('text/html <script>')).toBe('content-type unknown')
    expect(contentTypeReason(`a/${'b'.repeat(120)}`)).toBe('content-type unknown')
    expect(contentTypeReason(null)).toBe('content-type unknown')
    for (const reason of [
      'content-type a b/c',
      'you were hacked',
      'over 12x bytes',
      `content-type x/${'y'.repeat(99)}`,
    ])
      expect(omissionReason(reason)).toBe('omitted')
  })
})

describe('the capturer bounds the page thread', () => {
  const capturer = createDetailCapturer({
    urls: ['/api/'],
    headers: ['content-type'],
    requestBody: true,
    responseBody: true,
    maxBodyBytes: 1000,
    redactKeys: [],
    failuresOnly: false,
  })
  const big = `password=hunter2&pad=${'a'.repeat(PARSE_LIMIT)}&token=tail-secret`
  const marker = `${TRUNCATED_PREFIX}more than ${PARSE_LIMIT} characters]`

  it('cuts a string request body to the read cap before redacting it (fetch), and names page types safely', async () => {
    const call = capturer.fetch('https://a.example/api/x', 'https://a.example/api/x', {
      method: 'POST',
      body: big,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })!
    const response = new Response('{"a":1}', { headers: { 'content-type': 'x/y <b>evil</b>' } })
    const details = await call.response(response)
    expect(details.requestBody).toBe(`password=${REDACTED}&pad=${'a'.repeat(1000 - 24)}${marker}`)
    expect(details.responseBodyOmitted).toBe('content-type unknown')
  })

  it('cuts XHR bodies, and leaves out a JSON response too large to serialise', async () => {
    const xhr = {
      status: 200,
      responseType: 'json',
      response: { list: Array.from({ length: 300_000 }, () => 'xxxx') },
      getAllResponseHeaders: () => 'content-type: application/json\r\n',
      getResponseHeader: () => 'application/json',
    } as unknown as XMLHttpRequest
    const details = await capturer.xhr('https://a.example/api/x', xhr, [], big)!.done()
    expect(details.requestBody).toBe(`password=${REDACTED}&pad=${'a'.repeat(1000 - 24)}${marker}`)
    expect(details.responseBodyOmitted).toBe(`over ${PARSE_LIMIT} bytes`)
  })
})

describe('XHR JSON responses', () => {
  it('are serialised only when they fit the read cap', () => {
    expect(boundedJson({ a: [1, 'x'] }, 100)).toBe('{"a":[1,"x"]}')
    expect(boundedJson(null, 100)).toBe('')
    expect(boundedJson({ a: 'x'.repeat(200) }, 100)).toBeNull()
    expect(
      boundedJson(
        Array.from({ length: 200 }, () => 1),
        100,
      ),
    ).toBeNull()
  })
})

describe('URL parameters', () => {
  it('use the body words, and a URL without secrets stays byte for byte', () => {
    expect(redactUrl('https://a.example/x?newpassword=1&clientsecret=2&q=ok#access_token=t')).toBe(
      `https://a.example/x?newpassword=${REDACTED}&clientsecret=${REDACTED}&q=ok#access_token=${REDACTED}`,
    )
    expect(redactUrl('https://a.example/x?card_number=1&monkey=2')).toBe(
      `https://a.example/x?card_number=${REDACTED}&monkey=2`,
    )
    const plain = 'https://a.example/x?q=a+b&s=%7E~%27&t=&u=%zz#frag=1&x=%'
    expect(redactUrl(plain)).toBe(plain)
    expect(PARAM_SECRET_WORDS).toContain('code')
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
