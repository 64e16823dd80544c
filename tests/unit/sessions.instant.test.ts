import { describe, expect, it } from 'vitest'
import { InvalidInputError } from '@/lib/errors'
import { parseInstant } from '@/lib/sessions/instant'

describe('parseInstant', () => {
  it.each([
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2000-02-29T12:00Z', '2000-02-29T12:00:00.000Z'],
    ['2026-12-31T23:59:59.999+00:00', '2026-12-31T23:59:59.999Z'],
    ['0001-01-01', '0001-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
  ])('reads %s', (text, iso) => {
    expect(parseInstant(text, 'from').toISOString()).toBe(iso)
  })

  it.each([
    '2026-02-31',
    '2025-02-29',
    '1900-02-29',
    '2026-04-31',
    '2026-13-01',
    '2026-00-10',
    '0000-01-01',
    '0001-01-01T00:00+00:01',
    '9999-12-31T23:59-23:59',
  ])('refuses %s', (text) => {
    expect(() => parseInstant(text, 'from')).toThrow(InvalidInputError)
  })
})
