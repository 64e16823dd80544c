import type { z } from 'zod'
import { InvalidInputError } from './errors'

/** Parses a value or throws an InvalidInputError carrying the first issue's message. */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const issue = result.error.issues[0]
  throw new InvalidInputError(issue?.message ?? 'Invalid input')
}
