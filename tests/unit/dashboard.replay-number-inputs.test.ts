import { describe, expect, it } from 'vitest'
import {
  MAX_NODES,
  maskedNumbersAsText,
  unparseableNumber,
} from '@/app/(dashboard)/_components/replay-number-inputs'

const input = (id: number, attributes: Record<string, string>) => ({
  type: 2,
  id,
  tagName: 'input',
  attributes,
  childNodes: [],
})

const snapshot = (...children: unknown[]) => ({
  type: 2,
  timestamp: 1,
  data: {
    node: {
      type: 0,
      id: 1,
      childNodes: [{ type: 2, id: 2, tagName: 'body', attributes: {}, childNodes: children }],
    },
  },
})

describe('masked number inputs in a replay', () => {
  it('tells a value a number input drops from a number it keeps', () => {
    for (const value of ['***', '12*4', '1,5', 'NaN', '1e', '-', '.'])
      expect(unparseableNumber(value)).toBe(true)
    for (const value of ['', '0', '-12', '3.25', '.5', '1e10', '2E-3'])
      expect(unparseableNumber(value)).toBe(false)
    expect(unparseableNumber('9'.repeat(10_000))).toBe(true)
    expect(unparseableNumber(undefined)).toBe(false)
  })

  it('turns a number input recorded with a mask into a text input, and leaves real numbers alone', () => {
    const masked = input(10, { type: 'number', value: '****' })
    const plain = input(11, { type: 'number', value: '42' })
    const text = input(12, { type: 'text', value: '***' })
    expect(maskedNumbersAsText([snapshot(masked, plain, text)])).toBe(1)
    expect(masked.attributes).toEqual({ type: 'text', value: '****' })
    expect(plain.attributes.type).toBe('number')
    expect(text.attributes.type).toBe('text')
  })

  it('finds the mask in a later input event or mutation, and rewrites the node where it was added', () => {
    const typed = input(20, { type: 'Number' })
    const added = input(21, { type: 'number' })
    const changed = { id: 22, attributes: { type: 'number' } }
    const events = [
      snapshot(typed, input(22, { type: 'text' })),
      { type: 3, timestamp: 2, data: { source: 5, id: 20, text: '**', isChecked: false } },
      {
        type: 3,
        timestamp: 3,
        data: { source: 0, adds: [{ parentId: 2, node: added }], attributes: [changed] },
      },
      {
        type: 3,
        timestamp: 4,
        data: { source: 0, adds: [], attributes: [{ id: 21, attributes: { value: '***' } }] },
      },
      { type: 3, timestamp: 5, data: { source: 5, id: 22, text: '*' } },
    ]
    expect(maskedNumbersAsText(events)).toBe(3)
    expect(typed.attributes.type).toBe('text')
    expect(added.attributes.type).toBe('text')
    expect(changed.attributes.type).toBe('text')
  })

  it('survives hostile shapes and trees deeper than a call stack', () => {
    expect(
      maskedNumbersAsText([
        null,
        1,
        'x',
        { type: 2 },
        { type: 2, data: { node: null } },
        { type: 3, data: {} },
      ]),
    ).toBe(0)
    // A chain deeper than any call stack: walked without recursion.
    let deep: Record<string, unknown> = input(5, { type: 'number', value: '*' })
    for (let id = 100; id < 200_100; id++)
      deep = { type: 2, id, tagName: 'div', attributes: {}, childNodes: [deep] }
    const leaf = input(6, { type: 'number', value: '*' })
    expect(maskedNumbersAsText([snapshot(deep), snapshot(leaf)])).toBe(2)
    expect(MAX_NODES).toBeGreaterThan(200_000)
  })
})
