import { describe, expect, it } from 'vitest'
import { CUT_MARKER } from '@/lib/analysis/trail'
import { ANSWER_BUDGET, withinTextBudget } from '@/lib/mcp/answer-budget'

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

  it('never leaves half of a surrogate pair at the cut', () => {
    const cut = withinTextBudget('😀'.repeat(ANSWER_BUDGET.textChars))
    // encodeURIComponent throws on a lone surrogate.
    expect(() => encodeURIComponent(cut)).not.toThrow()
  })
})
