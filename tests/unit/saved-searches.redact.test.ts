import { describe, expect, it } from 'vitest'
import { redactQuery } from '@/lib/saved-searches/redact-person'
import { formatQuery } from '@/lib/search/format'
import { parseQuery } from '@/lib/search/parse'

/** The query with the identifiers erased, as canonical text. */
function redacted(text: string, identifiers: string[]): string {
  const parsed = parseQuery(text)
  if (!parsed.ok) throw new Error(parsed.error)
  return formatQuery(redactQuery(parsed.query, new Set(identifiers.map((i) => i.toLowerCase()))))
}

const canonical = (text: string) => {
  const parsed = parseQuery(text)
  if (!parsed.ok) throw new Error(parsed.error)
  return formatQuery(parsed.query)
}

describe('redactQuery (erasure of a person named in a saved search)', () => {
  it('replaces user and event-property values equal to an identifier, in any case and nesting', () => {
    expect(redacted('user.email = "Ada@Example.com" and error', ['ada@example.com'])).toBe(
      canonical('user.email = "[erased]" and error'),
    )
    expect(redacted('not (user.id = 42 or user.plan = pro)', ['42'])).toBe(
      canonical('not (user.id = "[erased]" or user.plan = pro)'),
    )
    expect(
      redacted('event[name = signup and prop.email = ada@example.com] then error', ['ADA@example.com']),
    ).toBe(canonical('event[name = signup and prop.email = "[erased]"] then error'))
  })

  it('replaces any text value holding an e-mail or a longer id of the person, in any field', () => {
    expect(redacted('page.url ~ "/u/Ada@Example.com/orders" then error', ['ada@example.com'])).toBe(
      canonical('page.url ~ "[erased]" then error'),
    )
    expect(redacted('click.text = "Orders of customer-8812"', ['customer-8812'])).toBe(
      canonical('click.text = "[erased]"'),
    )
    // A short id is found only as a whole value of a personal field: "/api/v42" is not user 42.
    expect(redacted('request.url ~ /api/v42', ['42'])).toBe(canonical('request.url ~ /api/v42'))
  })

  it('leaves other fields and other values alone', () => {
    for (const text of ['pages >= 42', 'click.text = 42', 'user.id = 420', 'user.email ~ ada'])
      expect(redacted(text, ['42', 'ada@example.com'])).toBe(canonical(text))
  })
})
