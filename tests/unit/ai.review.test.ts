import { MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { matchSignalWithModel } from '@/lib/ai/match-signal'
import { reviewIssue } from '@/lib/ai/review-issue'
import { writeInsightWithModel } from '@/lib/insights/write-insight'

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
}

function answering(text: string) {
  return new MockLanguageModelV3({
    doGenerate: async () => ({
      content: [{ type: 'text', text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    }),
  })
}

const failing = () =>
  new MockLanguageModelV3({
    doGenerate: async () => {
      throw new Error('provider down')
    },
  })

const issue = {
  title: 'TypeError on /checkout',
  description: 'Thrown after clicking Buy now',
  stepsToReplicate: '1. Open /checkout',
  evidence: { message: "Cannot read properties of undefined (reading 'price')" },
}

describe('model review of issues', () => {
  it('returns the structured review the model gives, validated by its schema', async () => {
    const review = {
      verified: true,
      title: "TypeError reading 'price' after clicking Buy now on /checkout",
      description: 'The cart total reads price of a missing item.',
      stepsToReplicate: '1. Open /checkout\n2. Click "Buy now"',
    }
    const model = answering(JSON.stringify(review))
    expect(await reviewIssue(model, issue)).toEqual(review)
    expect(model.doGenerateCalls).toHaveLength(1)
    expect(JSON.stringify(model.doGenerateCalls[0]!.prompt)).toContain("reading 'price'")
  })

  it('shows the model original frames without their source lines or minified twins', async () => {
    const model = answering(
      JSON.stringify({ verified: true, title: 't', description: 'd', stepsToReplicate: 's' }),
    )
    const frame = (i: number) => ({
      minified: { fn: 't', url: 'https://cdn.example/app.js', line: 1, column: 48213 + i },
      original: {
        fn: `applyDiscount${i}`,
        source: 'src/checkout.ts',
        line: 6,
        column: 3,
        context: { pre: ['SECRET-CONTEXT'], line: 'const code = cart.coupon!.code', post: [] },
      },
      status: 'mapped',
    })
    const frames = Array.from({ length: 20 }, (_, i) => frame(i))
    await reviewIssue(model, { ...issue, evidence: { ...issue.evidence, release: 'r1', frames } })
    const prompt = JSON.stringify(model.doGenerateCalls[0]!.prompt)
    expect(prompt).toContain('applyDiscount0')
    expect(prompt).toContain('src/checkout.ts')
    expect(prompt).not.toContain('SECRET-CONTEXT')
    expect(prompt).not.toContain('48213')
    // Ten frames are enough to judge by.
    expect(prompt).not.toContain('applyDiscount10')
  })

  it('returns null, never throws, when the model fails or answers off-schema', async () => {
    expect(await reviewIssue(failing(), issue)).toBeNull()
    expect(await reviewIssue(answering('{"verified":"yes"}'), issue)).toBeNull()
    expect(await reviewIssue(answering('not json'), issue)).toBeNull()
  })

  it('matches signals and writes insight text, or steps aside', async () => {
    const digest = {
      durationMs: 1,
      pages: [],
      clicks: [],
      inputs: [],
      errors: [],
      networkFailures: [],
      rageClicks: [],
      deadClicks: [],
    }
    expect(
      await matchSignalWithModel(
        answering('{"matched":true,"reason":"visited /checkout"}'),
        'checkout',
        digest,
      ),
    ).toEqual({
      matched: true,
      reason: 'visited /checkout',
    })
    expect(await matchSignalWithModel(failing(), 'checkout', digest)).toBeNull()
    const figures = {
      sessions: 1,
      users: 1,
      medianDurationMs: 1,
      friction: { errors: 0, rageClicks: 0, deadClicks: 0, networkFailures: 0 },
      topPages: [],
      topIssues: [],
      newIssues: [],
      frictionByPage: [],
    }
    expect(await writeInsightWithModel(answering('# Quiet day\n\nOne session.'), figures, null, [])).toBe(
      '# Quiet day\n\nOne session.',
    )
    expect(await writeInsightWithModel(failing(), figures, null, [])).toBeNull()
  })
})
