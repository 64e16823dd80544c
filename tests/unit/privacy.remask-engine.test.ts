import { describe, expect, it } from 'vitest'
import { compileMaskRules } from '@/lib/privacy/mask-rules'
import { EventMasker, maskValue } from '@/lib/privacy/remask-events'

/**
 * The re-masking engine over rrweb events (docs/privacy.md#re-masking): selectors follow nodes
 * across batches through the mirror, patterns reach every string, and the events keep their
 * structure and ids.
 */

const SECRET = 'hunter2-secret'

function fullSnapshot() {
  return {
    type: 2,
    timestamp: 1,
    data: {
      node: {
        type: 0,
        id: 1,
        childNodes: [
          {
            type: 2,
            id: 2,
            tagName: 'html',
            attributes: {},
            childNodes: [
              {
                type: 2,
                id: 3,
                tagName: 'form',
                attributes: { class: 'login' },
                childNodes: [
                  {
                    type: 2,
                    id: 4,
                    tagName: 'input',
                    attributes: { type: 'password', value: SECRET },
                    childNodes: [],
                  },
                  {
                    type: 2,
                    id: 5,
                    tagName: 'p',
                    attributes: {},
                    childNodes: [{ type: 3, id: 6, textContent: `pw ${SECRET}` }],
                  },
                ],
              },
              {
                type: 2,
                id: 7,
                tagName: 'p',
                attributes: {},
                childNodes: [{ type: 3, id: 8, textContent: 'public text' }],
              },
            ],
          },
        ],
      },
      initialOffset: { top: 0, left: 0 },
    },
  }
}

const ids = (value: unknown): number[] => {
  const found: number[] = []
  JSON.stringify(value, (key, v) => {
    if (key === 'id' && typeof v === 'number') found.push(v)
    return v
  })
  return found
}

describe('EventMasker', () => {
  it('masks text, values and inputs inside matching elements, across batches', () => {
    const masker = new EventMasker(compileMaskRules({ selectors: ['form.login'], patterns: [] }))
    const first = [fullSnapshot()]
    const idsBefore = ids(first)
    expect(masker.maskEvents(first)).toBe(true)
    const text = JSON.stringify(first)
    expect(text).not.toContain('hunter2')
    expect(text).toContain('public text')
    expect(ids(first)).toEqual(idsBefore)
    expect(text).toContain('{"type":3,"id":6,"textContent":"** **************"}')

    // A later batch: a node added under the form, a text change, an input, a value attribute.
    const second: Record<string, unknown>[] = [
      {
        type: 3,
        timestamp: 2,
        data: {
          source: 0,
          adds: [
            {
              parentId: 3,
              nextId: null,
              node: {
                type: 2,
                id: 9,
                tagName: 'span',
                attributes: { title: SECRET },
                childNodes: [{ type: 3, id: 10, textContent: SECRET }],
              },
            },
            { parentId: 7, nextId: null, node: { type: 3, id: 11, textContent: 'still public' } },
          ],
          texts: [{ id: 6, value: `new ${SECRET}` }],
          attributes: [{ id: 4, attributes: { value: SECRET } }],
          removes: [],
        },
      },
      { type: 3, timestamp: 3, data: { source: 5, id: 4, text: SECRET, isChecked: false } },
    ]
    masker.maskEvents(second)
    const later = JSON.stringify(second)
    expect(later).not.toContain('hunter2')
    expect(later).toContain('still public')
    expect((second[1]!.data as { text: string }).text).toBe('*'.repeat(SECRET.length))
    expect(masker.counts).toMatchObject({ elements: 1, inputs: 1 })
    expect(masker.counts.texts).toBeGreaterThanOrEqual(3)
  })

  it('masks pattern matches in every string: console, network bodies, headers and URLs', () => {
    const masker = new EventMasker(compileMaskRules({ selectors: [], patterns: ['hunter2'] }))
    const events = [
      {
        type: 6,
        timestamp: 1,
        data: { plugin: 'rrweb/console@1', payload: { level: 'log', payload: [`"pw=hunter2"`] } },
      },
      {
        type: 6,
        timestamp: 2,
        data: {
          plugin: 'rrweb/network@1',
          payload: {
            requests: [
              {
                url: 'https://x.test/login?pw=hunter2&a=1',
                requestHeaders: { 'x-pass': 'hunter2' },
                requestBody: '{"password":"hunter2"}',
                responseBody: 'ok',
              },
            ],
          },
        },
      },
      { type: 5, timestamp: 3, data: { tag: 'note', payload: { nested: [[['hunter2']]] } } },
    ]
    masker.maskEvents(events)
    const text = JSON.stringify(events)
    expect(text).not.toContain('hunter2')
    expect(text).toContain('rrweb/network@1')
    expect(text).toContain('https://x.test/login?pw=*******&a=1')
    expect(masker.counts.strings).toBe(5)
  })

  it('leaves events untouched when nothing matches, and survives hostile shapes', () => {
    const masker = new EventMasker(compileMaskRules({ selectors: ['input'], patterns: ['hunter2'] }))
    const events: unknown[] = [
      { type: 2, timestamp: 1, data: { node: 'nope' } },
      {
        type: 3,
        timestamp: 2,
        data: { source: 0, adds: [null, { parentId: 'x' }], texts: 'x', attributes: [{}] },
      },
      { type: 3, timestamp: 3, data: { source: 5, id: 999, text: 'unknown node' } },
      null,
    ]
    let deep: unknown = 'end'
    for (let i = 0; i < 100_000; i++) deep = [deep]
    events.push({ type: 5, timestamp: 4, data: deep })
    const before = JSON.stringify(events.slice(0, 4))
    expect(masker.maskEvents(events)).toBe(false)
    expect(JSON.stringify(events.slice(0, 4))).toBe(before)
  })
})

describe('maskValue', () => {
  it('returns a masked copy of derived JSON, or the value itself', () => {
    const rules = compileMaskRules({ selectors: [], patterns: ['hunter2'] })
    const entry = { kind: 'input', label: 'pw hunter2', nested: { list: ['hunter2'] } }
    const masked = maskValue(entry, rules)
    expect(masked.changed).toBe(2)
    expect(JSON.stringify(masked.value)).not.toContain('hunter2')
    expect(entry.label).toBe('pw hunter2')
    const clean = { kind: 'click' }
    expect(maskValue(clean, rules).value).toBe(clean)
    expect(maskValue('a hunter2', rules)).toEqual({ value: 'a *******', changed: 1 })
  })
})
