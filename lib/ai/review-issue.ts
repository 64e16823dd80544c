import { generateText, type LanguageModel, Output } from 'ai'
import { z } from 'zod'
import { logger } from '@/lib/log'
import { modelTimeoutMs } from './model'

export const IssueReview = z.object({
  verified: z
    .boolean()
    .describe(
      'true when the evidence shows a real problem a developer should fix; false for noise or expected behaviour',
    ),
  title: z.string().min(5).max(200).describe('A precise title: what failed, where, after which action'),
  description: z.string().min(10).max(4000),
  stepsToReplicate: z.string().min(10).max(4000).describe('Numbered steps, from the evidence only'),
})
export type IssueReview = z.infer<typeof IssueReview>

/**
 * Asks the model to confirm or reject a new issue from its evidence and to improve its text.
 * Any failure (no answer, invalid answer, timeout) returns null: the deterministic issue
 * stands and nothing waits on the model.
 */
export async function reviewIssue(
  model: LanguageModel,
  issue: { title: string; description: string | null; stepsToReplicate: string | null; evidence: unknown },
): Promise<IssueReview | null> {
  try {
    const { output } = await generateText({
      model,
      output: Output.object({ schema: IssueReview }),
      abortSignal: AbortSignal.timeout(modelTimeoutMs()),
      maxRetries: 1,
      system:
        'You review problems detected automatically in recorded browser sessions. Judge only from the evidence given; never invent steps, values or causes that it does not show.',
      prompt: JSON.stringify({
        title: issue.title,
        description: issue.description,
        stepsToReplicate: issue.stepsToReplicate,
        evidence: forModel(issue.evidence),
      }),
    })
    return output
  } catch (error) {
    logger.warn({ err: error }, 'issue review by the model failed; keeping the deterministic text')
    return null
  }
}

/**
 * The evidence as the model reads it: symbolicated frames keep their original function, file
 * and line, without the source lines around them and the minified twin, which would fill the
 * prompt (20 frames of customer code) and tell the model nothing the frame does not.
 */
function forModel(evidence: unknown): unknown {
  if (!evidence || typeof evidence !== 'object' || Array.isArray(evidence)) return evidence
  const fields = evidence as Record<string, unknown>
  if (!Array.isArray(fields.frames)) return evidence
  const frames = fields.frames.slice(0, 10).map((frame: unknown) => {
    if (!frame || typeof frame !== 'object') return null
    const { original, status } = frame as {
      original?: { fn?: unknown; source?: unknown; line?: unknown } | null
      status?: unknown
    }
    return original ? { fn: original.fn, source: original.source, line: original.line } : { status }
  })
  return { ...fields, frames }
}
