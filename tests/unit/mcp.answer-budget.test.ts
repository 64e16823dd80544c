import { describe, expect, it } from 'vitest'
import { CUT_MARKER } from '@/lib/analysis/trail'
import { ANSWER_BUDGET, withinTextBudget } from '@/lib/mcp/answer-budget'
import { untrustedMarkers } from '@/lib/mcp/untrusted'

describe('MCP answer budget', () => {
  it('leaves an answer within the budget unchanged', () => {
    const text = 'x'.repeat(ANSWER_BUDGET.textChars)
    expect(withinTextBudget(text)).toBe(text)
  })

  it('cuts a longer answer to the budget and says how to see the rest', () => {
    const cut = withinTextBudget(`start ${'y'.repeat(ANSWER_BUDGET.textChars * 3)}`)
    expect(cut.length).toBeLessThanOrEqual(ANSWER_BUDGET.textChars)
    expect(cut.startsWith('start ')).toBe(true)
    expect(cut).toContain(CUT_MARKER)
    expect(cut).toMatch(/ask for a smaller window or page/)
  })

  it('closes the untrusted block the cut falls into, so the note stays outside it', () => {
    const untrusted = untrustedMarkers()
    const text = `${untrusted.note}\n${untrusted.wrap('page text '.repeat(5_000))}`
    const cut = withinTextBudget(text)
    expect(cut.length).toBeLessThanOrEqual(ANSWER_BUDGET.textChars)
    const id = /<untrusted-data id="([0-9a-f]{16})">/.exec(cut)![1]
    const closing = cut.lastIndexOf(`</untrusted-data id="${id}">`)
    expect(closing).toBeGreaterThan(cut.indexOf(CUT_MARKER))
    expect(cut.indexOf('ask for a smaller window')).toBeGreaterThan(closing)
  })

  it('adds no closing marker when the cut falls outside any block', () => {
    const untrusted = untrustedMarkers()
    const text = `${untrusted.wrap('short')}\n${'our own line\n'.repeat(5_000)}`
    const cut = withinTextBudget(text)
    expect(cut.match(/<\/untrusted-data/g)).toHaveLength(1)
  })

  it('never leaves half of a surrogate pair at the cut', () => {
    const cut = withinTextBudget('😀'.repeat(ANSWER_BUDGET.textChars))
    // encodeURIComponent throws on a lone surrogate.
    expect(() => encodeURIComponent(cut)).not.toThrow()
  })
})
