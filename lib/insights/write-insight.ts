import { generateText, type LanguageModel } from 'ai'
import { modelTimeoutMs } from '@/lib/ai/model'
import { logger } from '@/lib/log'
import type { IntervalFigures } from './figures'

/** Insight prose written by the model from the figures only; null falls back to the template. */
export async function writeInsightWithModel(
  model: LanguageModel,
  current: IntervalFigures,
  previous: IntervalFigures | null,
  rises: string[],
): Promise<string | null> {
  try {
    const { text } = await generateText({
      model,
      abortSignal: AbortSignal.timeout(modelTimeoutMs()),
      maxRetries: 1,
      system:
        'Write a short markdown report for developers about one period of user sessions. Lead with what changed against the previous period. State only figures present in the data; no advice that the data does not support.',
      prompt: JSON.stringify({ period: current, previousPeriod: previous, sharpRises: rises }),
    })
    return text.trim() || null
  } catch (error) {
    logger.warn({ err: error }, 'insight text by the model failed; using the template')
    return null
  }
}
