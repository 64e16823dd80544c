import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { LanguageModel } from 'ai'
import type { AiChoice } from '@/lib/config'
import { getConfig } from '@/lib/config'

/** The configured language model, or null: without AI_* the analysis stays deterministic. */
export function createLanguageModel(choice: AiChoice): LanguageModel | null {
  if (choice.kind === 'none') return null
  switch (choice.provider) {
    case 'openai':
      return createOpenAI({ apiKey: choice.apiKey, baseURL: choice.baseUrl })(choice.model)
    case 'anthropic':
      return createAnthropic({ apiKey: choice.apiKey, baseURL: choice.baseUrl })(choice.model)
    case 'google':
      return createGoogleGenerativeAI({ apiKey: choice.apiKey, baseURL: choice.baseUrl })(choice.model)
    case 'openai-compatible':
      return createOpenAICompatible({ name: 'custom', apiKey: choice.apiKey, baseURL: choice.baseUrl ?? '' })(
        choice.model,
      )
  }
}

let cached: { model: LanguageModel | null } | undefined

export function getLanguageModel(): LanguageModel | null {
  cached ??= { model: createLanguageModel(getConfig().ai) }
  return cached.model
}

/** Tests put the AI SDK's mock model here. */
export function setLanguageModelForTests(model: LanguageModel | null | undefined): void {
  cached = model === undefined ? undefined : { model }
}

/**
 * How long a model call may hold up the pipeline (AI_TIMEOUT_SECONDS, 20 s by default); on
 * timeout the deterministic result stands.
 */
export function modelTimeoutMs(): number {
  return getConfig().aiTimeoutMs
}
