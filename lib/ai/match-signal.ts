import { generateText, type LanguageModel, Output } from 'ai'
import { z } from 'zod'
import type { SessionDigest } from '@/lib/analysis/types'
import { logger } from '@/lib/log'
import { modelTimeoutMs } from './model'

const SignalDecision = z.object({
  matched: z.boolean(),
  reason: z.string().max(500).describe('One sentence citing the digest entries that decide it'),
})

/** The model's reading of a signal against a session digest; null when it could not answer. */
export async function matchSignalWithModel(
  model: LanguageModel,
  prompt: string,
  digest: SessionDigest,
): Promise<z.infer<typeof SignalDecision> | null> {
  try {
    const { output } = await generateText({
      model,
      output: Output.object({ schema: SignalDecision }),
      abortSignal: AbortSignal.timeout(modelTimeoutMs()),
      maxRetries: 1,
      system:
        'Decide whether a recorded browser session matches a description. Use only the session digest (pages, clicks, masked inputs, errors, failed requests, rage and dead clicks, duration).',
      prompt: JSON.stringify({ description: prompt, session: digest }),
    })
    return output
  } catch (error) {
    logger.warn({ err: error }, 'signal matching by the model failed')
    return null
  }
}
