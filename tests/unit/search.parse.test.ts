import { describe, expect, it } from 'vitest'
import type { QueryNode } from '@/lib/search/ast'
import { formatQuery } from '@/lib/search/format'
import { parseQuery } from '@/lib/search/parse'
import { userAgentFacts } from '@/lib/sessions/user-agent'

function parsed(text: string): QueryNode {
  const result = parseQuery(text)
  if (!result.ok) throw new Error(`${text}: ${result.error} at ${result.position}`)
  return result.query
}

const str = (value: string) => ({ type: 'string', value }) as const
const num = (raw: string) => ({ type: 'number', value: Number(raw), raw }) as const
const moment = (kind: string, ...conditions: { field: string; op: string; value: unknown }[]) => ({
  kind,
  conditions,
})
const seq = (moments: unknown[], withinMs: number | null = null, withinRaw: string | null = null) => ({
  type: 'sequence',
  moments,
  withinMs,
  withinRaw,
})

describe('search language: valid queries', () => {
  it('reads the contract examples', () => {
    expect(parsed('click.text = Pay then error within 60s')).toEqual(
      seq([moment('click', { field: 'text', op: '=', value: str('Pay') }), moment('error')], 60_000, '60s'),
    )
    expect(parsed('page.path = /checkout and request[url ~ /api/cart and status = 500]')).toEqual({
      type: 'and',
      children: [
        seq([moment('page', { field: 'path', op: '=', value: str('/checkout') })]),
        seq([
          moment(
            'request',
            { field: 'url', op: '~', value: str('/api/cart') },
            { field: 'status', op: '=', value: num('500') },
          ),
        ]),
      ],
    })
    expect(parsed('user.id = 123')).toEqual({ type: 'session', field: 'user.id', op: '=', value: num('123') })
    expect(parsed('not error and pages >= 3')).toEqual({
      type: 'and',
      children: [
        { type: 'not', child: seq([moment('error')]) },
        { type: 'session', field: 'pages', op: '>=', value: num('3') },
      ],
    })
    expect(parsed('event[name = purchase and prop.amount > 100]')).toEqual(
      seq([
        moment(
          'event',
          { field: 'name', op: '=', value: str('purchase') },
          { field: 'prop.amount', op: '>', value: num('100') },
        ),
      ]),
    )
  })

  it('binds and tighter than or, juxtaposition as and, not tightest; keywords in any case', () => {
    const a = { type: 'session', field: 'pages', op: '>', value: num('1') }
    const b = { type: 'session', field: 'errors', op: '=', value: num('0') }
    const c = { type: 'session', field: 'os', op: '=', value: str('Linux') }
    expect(parsed('pages > 1 OR errors = 0 And os = Linux')).toEqual({
      type: 'or',
      children: [a, { type: 'and', children: [b, c] }],
    })
    expect(parsed('pages > 1 errors = 0 or os = Linux')).toEqual({
      type: 'or',
      children: [{ type: 'and', children: [a, b] }, c],
    })
    expect(parsed('(pages > 1 or errors = 0) os = Linux')).toEqual({
      type: 'and',
      children: [{ type: 'or', children: [a, b] }, c],
    })
    expect(parsed('NOT pages > 1 and errors = 0')).toEqual({
      type: 'and',
      children: [{ type: 'not', child: a }, b],
    })
  })

  it('reads sequences, brackets, the dot form and durations', () => {
    expect(parsed('click[text = Pay]')).toEqual(parsed('click.text = Pay'))
    expect(parsed('page then click then input then error then request within 2h')).toEqual(
      seq(
        [moment('page'), moment('click'), moment('input'), moment('error'), moment('request')],
        7_200_000,
        '2h',
      ),
    )
    expect(parsed('request.duration > 1.5s')).toEqual(
      seq([
        moment('request', { field: 'duration', op: '>', value: { type: 'duration', ms: 1500, raw: '1.5s' } }),
      ]),
    )
    expect(parsed('duration >= 500ms')).toEqual({
      type: 'session',
      field: 'duration',
      op: '>=',
      value: { type: 'duration', ms: 500, raw: '500ms' },
    })
    expect(parsed('request.failed = TRUE')).toEqual(
      seq([moment('request', { field: 'failed', op: '=', value: str('TRUE') })]),
    )
    expect(parsed('Click.TEXT = x')).toEqual(
      seq([moment('click', { field: 'text', op: '=', value: str('x') })]),
    )
    expect(parsed('event.prop.Plan = Pro and user.Plan = pro')).toEqual({
      type: 'and',
      children: [
        seq([moment('event', { field: 'prop.Plan', op: '=', value: str('Pro') })]),
        { type: 'session', field: 'user.Plan', op: '=', value: str('pro') },
      ],
    })
    expect(parsed('user.EMAIL ~ @acme.com')).toEqual({
      type: 'session',
      field: 'user.email',
      op: '~',
      value: str('@acme.com'),
    })
  })

  it('reads quoted values with escapes, and keywords as values', () => {
    expect(parsed('click.text = "Pay \\"now\\" \\\\ later"')).toEqual(
      seq([moment('click', { field: 'text', op: '=', value: str('Pay "now" \\ later') })]),
    )
    expect(parsed('console.message ~ "a and b"')).toEqual(
      seq([moment('console', { field: 'message', op: '~', value: str('a and b') })]),
    )
    expect(parsed('click.text = then')).toEqual(
      seq([moment('click', { field: 'text', op: '=', value: str('then') })]),
    )
    expect(parsed('page.url = https://shop.example/a/b:1 release = 1.2.3-rc+4')).toEqual({
      type: 'and',
      children: [
        seq([moment('page', { field: 'url', op: '=', value: str('https://shop.example/a/b:1') })]),
        { type: 'session', field: 'release', op: '=', value: str('1.2.3-rc+4') },
      ],
    })
    expect(parsed('click.text = Bezahlen€')).toEqual(
      seq([moment('click', { field: 'text', op: '=', value: str('Bezahlen€') })]),
    )
  })
})

describe('search language: malformed queries', () => {
  const cases: [string, number, RegExp][] = [
    ['', 0, /empty/],
    ['   ', 0, /empty/],
    ['click.text =', 12, /Expected a value/],
    ['click.text Pay', 11, /Expected an operator/],
    ['foo = 1', 0, /Unknown field "foo"/],
    ['click.colour = red', 6, /Unknown field "colour" for click/],
    ['click[text = a and colour = b]', 19, /Unknown field "colour"/],
    ['click[text = Pay', 16, /Expected "and" or "\]"/],
    ['click[]', 6, /Expected a field/],
    ['click = Pay', 6, /after a dot or in brackets/],
    ['(pages > 1', 10, /Expected "\)"/],
    ['pages > 1)', 9, /Unmatched/],
    ['pages > many', 8, /takes a number/],
    ['click.text > 3', 11, /does not take ">"/],
    ['request.status ~ 5', 15, /does not take "~"/],
    ['request.failed = maybe', 17, /true or false/],
    ['device = phone', 9, /desktop, mobile, tablet/],
    ['duration > long', 11, /takes a duration/],
    ['click then', 10, /Expected a moment/],
    ['click then pages > 1', 11, /Expected a moment/],
    ['pages > 1 then error', 10, /"then" must follow a moment/],
    ['error within 5', 13, /"within" takes a duration/],
    ['click then error within 0.4ms', 24, /"within" takes a duration from 1ms to 720h/],
    ['click then error within 721h', 24, /"within" takes a duration from 1ms to 720h/],
    ['click then error within 99999999999999999999ms', 24, /from 1ms to 720h/],
    ['click.text = "Pay', 13, /Unterminated/],
    ['click.text = "a\\nb"', 15, /backslash/],
    ['click.text = a & b', 15, /Unexpected character "&"/],
    ['click.text ! a', 11, /Unexpected character "!"/],
    ['and error', 0, /Expected a condition/],
    ['error or', 8, /Expected a condition/],
    ['error "x"', 6, /Unexpected a quoted value/],
    ['user. = 1', 0, /Unknown field/],
    ['click.constructor = 1', 6, /Unknown field/],
    ['5constructor > 1', 0, /Unknown field/],
    ['click.text = "a\u0000b"', 15, /NUL/],
    ['click.text = "a\ud800b"', 15, /broken Unicode/],
  ]
  it.each(cases)('%j fails at %i', (text, position, message) => {
    const result = parseQuery(text)
    expect(result).toMatchObject({ ok: false, position })
    if (!result.ok) expect(result.error).toMatch(message)
  })
})

describe('search language: limits', () => {
  it('refuses text over 1000 characters before reading it, at position 1000', () => {
    expect(parseQuery(`click.text = "${'a'.repeat(990)}"`)).toMatchObject({ ok: false, position: 1000 })
    expect(parseQuery('x'.repeat(5_000_000))).toMatchObject({ ok: false, position: 1000 })
    expect(parseQuery(`click.text = "${'a'.repeat(984)}"`).ok).toBe(true)
  })

  it('allows 32 conditions and points at the 33rd', () => {
    const conditions = Array.from({ length: 33 }, () => 'pages > 1')
    expect(parseQuery(conditions.slice(0, 32).join(' ')).ok).toBe(true)
    expect(parseQuery(conditions.join(' '))).toMatchObject({ ok: false, position: 32 * 10 })
    // A bare moment and each bracketed condition count too.
    expect(parseQuery(`${'error '.repeat(32)}click[text = a]`)).toMatchObject({ ok: false, position: 198 })
  })

  it('allows 5 moments in a sequence and points at the 6th', () => {
    expect(parseQuery('error then error then error then error then error').ok).toBe(true)
    expect(parseQuery('error then error then error then error then error then click')).toMatchObject({
      ok: false,
      position: 55,
    })
  })

  it('allows nesting 8 deep and points at the 9th', () => {
    expect(parseQuery(`${'('.repeat(8)}error${')'.repeat(8)}`).ok).toBe(true)
    expect(parseQuery(`${'('.repeat(9)}error${')'.repeat(9)}`)).toMatchObject({ ok: false, position: 8 })
    expect(parseQuery(`${'not '.repeat(8)}error`).ok).toBe(true)
    expect(parseQuery(`${'not ('.repeat(5)}error${')'.repeat(5)}`)).toMatchObject({ ok: false, position: 20 })
  })

  it('reads hostile text of the largest size in one pass (no backtracking)', () => {
    // Shapes that make a backtracking regex tokenizer go quadratic or worse.
    const hostile = [
      `"${'\\"'.repeat(499)}`,
      '-'.repeat(1000),
      `${'1'.repeat(999)}x`,
      '('.repeat(1000),
      '! '.repeat(500),
    ]
    for (const text of hostile) expect(parseQuery(text).ok).toBe(false)
    expect(parseQuery(`click.text = ${'a.'.repeat(493)}`).ok).toBe(true)
  })
})

describe('search language: formatting', () => {
  const queries = [
    'click.text = Pay then error within 60s',
    'page.path = /checkout and request[url ~ /api/cart and status = 500]',
    'user.id = 123',
    'not error and pages >= 3',
    'event[name = purchase and prop.amount > 100]',
    '(pages > 1 or errors = 0) and (os = Linux or not (browser ~ fire and device = mobile))',
    '((pages > 1 and errors = 0)) and os = x',
    '(pages > 1 or errors = 0) or os = x',
    'click.text = "and" or click.text = "5s" or click.text = "" or click.text = "a \\" b \\\\"',
    'click.text = 007 release = 1.2.3 user.Plan > -1.50 request.duration <= 250ms',
    'not not dead_click[selector = "#buy > span" and name != x] then rage_click.count >= 3',
    'console[level = error and message !~ "ResizeObserver loop"] or error.source = uncaught',
  ]
  it.each(queries)('round-trips %j', (text) => {
    const query = parsed(text)
    const formatted = formatQuery(query)
    expect(parsed(formatted)).toEqual(query)
    expect(formatQuery(parsed(formatted))).toBe(formatted)
  })

  it('writes the canonical form', () => {
    expect(formatQuery(parsed('CLICK[TEXT=Pay]  THEN  error WITHIN 1m'))).toBe(
      'click.text = Pay then error within 1m',
    )
    expect(formatQuery(parsed('(pages>1 or errors=0) os=x'))).toBe('(pages > 1 or errors = 0) and os = x')
  })
})

describe('search: browser, os and device from the user agent', () => {
  it('reads what bowser names, and nothing from nothing', () => {
    expect(
      userAgentFacts(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1',
      ),
    ).toEqual({ browser: 'Safari', os: 'iOS', device: 'mobile' })
    expect(
      userAgentFacts('Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0'),
    ).toEqual({ browser: 'Firefox', os: 'Windows', device: 'desktop' })
    expect(userAgentFacts(null)).toEqual({ browser: null, os: null, device: null })
    expect(userAgentFacts(' ')).toEqual({ browser: null, os: null, device: null })
  })
})
