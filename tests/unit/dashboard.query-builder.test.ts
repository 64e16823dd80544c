import { describe, expect, it } from 'vitest'
import {
  type BuilderQuery,
  builderToText,
  emptyRow,
  operatorsOf,
  textToBuilder,
  valueText,
} from '@/app/(dashboard)/sessions/query-builder'
import { parseQuery } from '@/lib/search/parse'

const tree = (text: string) => {
  const parsed = parseQuery(text)
  if (!parsed.ok) throw new Error(`${text}: ${parsed.error} at ${parsed.position}`)
  return parsed.query
}

describe('the sessions query builder', () => {
  it('writes rows as the query text the language reads', () => {
    const builder: BuilderQuery = {
      join: 'and',
      rows: [
        {
          target: 'moment',
          not: false,
          steps: [
            { kind: 'click', conditions: [{ field: 'text', op: '=', value: 'Pay now' }] },
            { kind: 'error', conditions: [] },
          ],
          within: '60s',
        },
        {
          target: 'moment',
          not: false,
          steps: [
            {
              kind: 'request',
              conditions: [
                { field: 'url', op: '~', value: '/api/cart' },
                { field: 'status', op: '>=', value: '500' },
              ],
            },
          ],
          within: '',
        },
        { target: 'session', not: true, condition: { field: 'user.email', op: '~', value: 'example.com' } },
      ],
    }
    const text = builderToText(builder)
    expect(text).toBe(
      'click.text = "Pay now" then error within 60s and request[url ~ /api/cart and status >= 500] and not user.email ~ example.com',
    )
    expect(tree(text)).toEqual(
      tree(
        '(click[text = "Pay now"] then error within 60s) request[url ~ /api/cart and status >= 500] not user.email ~ example.com',
      ),
    )
    expect(builderToText({ join: 'or', rows: [emptyRow('dead_click'), emptyRow('rage_click')] })).toBe(
      'dead_click or rage_click',
    )
    expect(builderToText({ join: 'and', rows: [] })).toBe('')
  })

  it('quotes a value only when the language would not read it back as typed', () => {
    expect(valueText('/checkout')).toBe('/checkout')
    expect(valueText('500')).toBe('500')
    expect(valueText('30s')).toBe('30s')
    expect(valueText('Then')).toBe('"Then"')
    expect(valueText('')).toBe('""')
    expect(valueText('say "hi" \\ bye')).toBe('"say \\"hi\\" \\\\ bye"')
    expect(tree(`error.message = ${valueText('say "hi" \\ bye')}`)).toMatchObject({
      moments: [{ conditions: [{ value: { type: 'string', value: 'say "hi" \\ bye' } }] }],
    })
  })

  it('reads text into rows and back without changing the query', () => {
    for (const text of [
      'click.text = Pay then error within 60s',
      'page.path = /checkout and request[url ~ /api/cart and status = 500]',
      'user.id = abc-123',
      'not error and pages >= 3',
      'event[name = purchase and prop.amount > 100]',
      'dead_click or rage_click[count >= 5] or browser = Firefox',
      'not (click.text = Buy then page.path ~ /cart then error within 2m)',
    ]) {
      const result = textToBuilder(text)
      if (!result.ok) throw new Error(`${text}: not shown in the builder`)
      expect(tree(builderToText(result.builder)), text).toEqual(tree(text))
    }
  })

  it('opens a group of the rows’ own kind into rows', () => {
    const result = textToBuilder('(error and pages > 2) and device = mobile')
    expect(result.ok && builderToText(result.builder)).toBe('error and pages > 2 and device = mobile')
  })

  it('keeps a query it cannot show in the text form, and says where a broken one is wrong', () => {
    expect(textToBuilder('error or (click and pages > 2)')).toEqual({ ok: false, reason: 'nested' })
    expect(textToBuilder('not not error')).toEqual({ ok: false, reason: 'nested' })
    expect(textToBuilder('  ')).toEqual({ ok: true, builder: { join: 'and', rows: [] } })
    const broken = textToBuilder('click.text = ')
    expect(broken).toMatchObject({ ok: false, reason: 'invalid', position: 13 })
  })

  it('offers the operators a field takes', () => {
    expect(operatorsOf('request', 'status')).toEqual(['=', '!=', '>', '>=', '<', '<='])
    expect(operatorsOf('click', 'text')).toEqual(['=', '!=', '~', '!~'])
    expect(operatorsOf('session', 'user.plan')).toContain('~')
    expect(operatorsOf('click', 'no-such-field')).toHaveLength(8)
  })
})
