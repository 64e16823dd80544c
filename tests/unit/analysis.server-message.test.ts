/**
 * The server's message in a failed request's captured response body (issue 20): the JSON
 * shapes APIs answer with, text and HTML pages, and bodies written to cost or confuse.
 */
import { describe, expect, it } from 'vitest'
import { analyzeEvents } from '@/lib/analysis'
import {
  firstTextLine,
  MAX_JSON_BODY_CHARS,
  MAX_SERVER_MESSAGE_CHARS,
  serverMessage,
} from '@/lib/analysis/server-message'
import { el, page, SessionBuilder } from '@/lib/analysis/testing/events'

describe('JSON bodies', () => {
  it.each([
    ['{"message":"Out of stock"}', 'Out of stock'],
    ['{"error":"invalid_grant","error_description":"Token expired"}', 'invalid_grant'],
    ['{"error":{"message":"Insufficient stock for SKU 42","code":7}}', 'Insufficient stock for SKU 42'],
    ['{"error":{"code":7},"error_description":"Bad token"}', 'Bad token'],
    [
      '{"type":"about:blank","title":"Conflict","detail":"Order 9 was already paid"}',
      'Order 9 was already paid',
    ],
    ['{"title":"Service Unavailable"}', 'Service Unavailable'],
    ['{"errors":[{"message":"Field \\"x\\" missing"}]}', 'Field "x" missing'],
    ['{"errors":["quota exceeded"]}', 'quota exceeded'],
    ['[{"message":"first"},{"message":"second"}]', 'first'],
    ['"Plain JSON string"', 'Plain JSON string'],
    ['  \n {"message":"  spaced\\n\\tout  "}', 'spaced out'],
  ])('%s → %s', (body, message) => {
    expect(serverMessage(body)).toBe(message)
  })

  it('skips fields that are not strings, or empty, and takes the next', () => {
    expect(serverMessage('{"message":42,"error":{"message":["x"]},"detail":"   ","title":"Used"}')).toBe(
      'Used',
    )
    expect(serverMessage('{"message":null,"error":true,"errors":[{"message":{}}]}')).toBeNull()
    expect(serverMessage('{"status":500}')).toBeNull()
    expect(serverMessage('[]')).toBeNull()
  })

  it('reads nothing deeper than the fixed keys', () => {
    expect(serverMessage('{"data":{"message":"deep"}}')).toBeNull()
  })

  it('gives nothing for JSON that does not parse (cut by the recorder) rather than raw JSON', () => {
    expect(serverMessage('{"error":{"message":"Insufficient st… [truncated]')).toBeNull()
  })

  it('cuts a long message to one short line', () => {
    const message = serverMessage(JSON.stringify({ message: `${'word '.repeat(500)}end` }))!
    expect(message.length).toBe(MAX_SERVER_MESSAGE_CHARS)
    expect(message.endsWith('…')).toBe(true)
  })

  it('does not parse bodies over the limit', () => {
    const body = JSON.stringify({ message: 'hidden', pad: 'x'.repeat(MAX_JSON_BODY_CHARS) })
    expect(serverMessage(body)).toBeNull()
  })

  it('survives deep nesting within the limit', () => {
    const depth = Math.floor(MAX_JSON_BODY_CHARS / 2) - 10
    expect(serverMessage(`${'['.repeat(depth)}${']'.repeat(depth)}`)).toBeNull()
    expect(serverMessage(`{"error":${'{"error":'.repeat(5000)}1${'}'.repeat(5000)}}`)).toBeNull()
  })

  it('ignores what is not a string', () => {
    expect(serverMessage(undefined)).toBeNull()
    expect(serverMessage({ message: 'object, not a body' })).toBeNull()
    expect(serverMessage(42)).toBeNull()
  })
})

describe('text and HTML bodies', () => {
  it('takes the first non-empty line of text', () => {
    expect(serverMessage('\n\n  Upstream timed out  \nretry later')).toBe('Upstream timed out')
  })

  it('strips tags, skips head, script, style and comments, decodes a few entities', () => {
    const html = `<!DOCTYPE html><html><head><title>ignored</title><style>p{}</style></head>
      <body><!-- <p>commented</p> --><script>var a = "<h1>no</h1>"</script>
      <h1>Bad &amp; <b>broken</b> gateway</h1><p>nginx</p></body></html>`
    expect(serverMessage(html)).toBe('Bad & broken gateway')
  })

  it('finds closing tags in any case', () => {
    expect(firstTextLine('<SCRIPT>x</Script><P>Shown</P>')).toBe('Shown')
  })

  it('gives null for markup without text', () => {
    expect(serverMessage('<html><body><div></div></body></html>')).toBeNull()
    expect(serverMessage('')).toBeNull()
  })

  it('stays linear on hostile markup', () => {
    // Unclosed tags, many script openers and endless `<` would be quadratic for a naive scanner.
    for (const body of [
      '<script>'.repeat(200_000),
      '<'.repeat(1_000_000),
      `<p${' a'.repeat(500_000)}`,
      '&'.repeat(1_000_000),
      `${'<!--'.repeat(100_000)}`,
    ]) {
      expect(serverMessage(body) ?? '').not.toContain('<script')
    }
    // A blank stretch longer than a message does not end the search.
    expect(serverMessage(`${' '.repeat(5000)}found`)).toBe('found')
    const long = serverMessage('x'.repeat(5_000_000))!
    expect(long.length).toBe(MAX_SERVER_MESSAGE_CHARS)
  })
})

describe('in the network_error finding', () => {
  const ORIGIN = 'https://shop.example.com'
  const DOC = page([el(10, 'button', { id: 'buy' })])
  const failed = (body: string, status = 500, url = `${ORIGIN}/api/orders`) =>
    ({
      url,
      method: 'POST',
      status,
      details: {
        responseHeaders: { 'content-type': 'application/json' },
        responseBody: body,
      },
    }) as const

  it('puts the message in the evidence and the description, not in the title or fingerprint', async () => {
    const withMessage = new SessionBuilder()
      .load(`${ORIGIN}/checkout`, DOC)
      .wait(1000)
      .request(failed('{"error":{"message":"Insufficient stock for SKU 42"}}'))
      .wait(31_000)
      .mouseMove()
    const without = new SessionBuilder()
      .load(`${ORIGIN}/checkout`, DOC)
      .wait(1000)
      .request({ url: `${ORIGIN}/api/orders`, method: 'POST', status: 500 })
      .wait(31_000)
      .mouseMove()
    const [a] = (await analyzeEvents(withMessage.events)).findings
    const [b] = (await analyzeEvents(without.events)).findings
    expect(a!.evidence.serverMessage).toBe('Insufficient stock for SKU 42')
    expect(a!.description).toContain('The server answered: “Insufficient stock for SKU 42”.')
    expect(b!.evidence).not.toHaveProperty('serverMessage')
    expect(a!.title).toBe(b!.title)
    expect(a!.fingerprint).toBe(b!.fingerprint)
  })

  it('keeps the first message when the same failure repeats with another one', async () => {
    const b = new SessionBuilder()
      .load(`${ORIGIN}/checkout`, DOC)
      .wait(1000)
      .request(failed('{"message":"first"}'))
      .wait(1000)
      .request(failed('{"message":"second"}'))
      .wait(31_000)
      .mouseMove()
    const { findings } = await analyzeEvents(b.events)
    expect(findings).toHaveLength(1)
    expect(findings[0]!.evidence.serverMessage).toBe('first')
  })

  it('reads no body of requests that are not reported', async () => {
    const b = new SessionBuilder()
      .load(`${ORIGIN}/checkout`, DOC)
      .wait(1000)
      .request(failed('{"message":"not an issue"}', 404))
      .wait(31_000)
      .mouseMove()
    expect((await analyzeEvents(b.events)).findings).toEqual([])
  })
})
