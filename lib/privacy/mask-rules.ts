import { InvalidInputError } from '@/lib/errors'
import { type MaskPattern, MaskPatternError, parseMaskPattern } from './mask-patterns'
import {
  type CompiledSelectors,
  compileSelectors,
  MaskSelectorError,
  parseMaskSelector,
} from './mask-selectors'

/** At most this many selectors and this many patterns, in an organization's settings or one re-masking. */
export const MAX_MASK_SELECTORS = 20
export const MAX_MASK_PATTERNS = 20
/** Selectors in all once comma lists are split. */
export const MAX_SELECTOR_LIST = 40

/** Selectors and patterns as owners typed them: trimmed, unique, checked. */
export interface MaskRuleInput {
  selectors: string[]
  patterns: string[]
}

/** The same rules, parsed once for matching. */
export interface MaskRules {
  selectors: CompiledSelectors | null
  patterns: MaskPattern[]
}

export const NO_MASK_RULES: MaskRules = { selectors: null, patterns: [] }

function list(value: unknown, name: string, max: number): string[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
    throw new InvalidInputError(`${name} must be an array of strings`)
  if (value.length > max) throw new InvalidInputError(`${name}: at most ${max}`)
  // Patterns keep their spaces (a literal may begin or end with one); selectors are trimmed.
  const cleaned = (value as string[]).map((item) => (name === 'selectors' ? item.trim() : item))
  return [...new Set(cleaned.filter((item) => item.trim() !== ''))]
}

/**
 * Validates rules from a hostile caller before anything is stored: every selector and pattern
 * parses, within the bounds, or an InvalidInputError (400) says which one and why.
 */
export function parseMaskRuleInput(input: { selectors?: unknown; patterns?: unknown }): MaskRuleInput {
  const selectors = list(input.selectors, 'selectors', MAX_MASK_SELECTORS)
  const patterns = list(input.patterns, 'patterns', MAX_MASK_PATTERNS)
  try {
    let complexes = 0
    for (const selector of selectors) complexes += parseMaskSelector(selector).length
    // Each comma-separated selector is a few bits of state on every matching node.
    if (complexes > MAX_SELECTOR_LIST)
      throw new InvalidInputError(
        `At most ${MAX_SELECTOR_LIST} selectors in all, counting each part of a comma list`,
      )
    for (const pattern of patterns) parseMaskPattern(pattern)
  } catch (error) {
    if (error instanceof MaskSelectorError || error instanceof MaskPatternError)
      throw new InvalidInputError(error.message)
    throw error
  }
  return { selectors, patterns }
}

/**
 * Compiles stored rules. They were checked when stored; one that no longer parses (a rule
 * written by an older version) is skipped rather than stopping ingest.
 */
export function compileMaskRules(input: {
  selectors: readonly string[]
  patterns: readonly string[]
}): MaskRules {
  const selectors: string[] = []
  for (const selector of input.selectors) {
    try {
      parseMaskSelector(selector)
      selectors.push(selector)
    } catch {}
  }
  const patterns: MaskPattern[] = []
  for (const pattern of input.patterns) {
    try {
      patterns.push(parseMaskPattern(pattern))
    } catch {}
  }
  return { selectors: selectors.length > 0 ? compileSelectors(selectors) : null, patterns }
}

export const hasMaskRules = (rules: MaskRules | undefined | null): rules is MaskRules =>
  !!rules && (rules.selectors !== null || rules.patterns.length > 0)
