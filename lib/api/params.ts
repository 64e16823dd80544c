import { ISSUE_STATUSES, type IssueStatus } from '@/db/schema'
import { InvalidInputError } from '@/lib/errors'

export const INVALID_STATUS = `status must be one of: ${ISSUE_STATUSES.join(', ')}`

/** `limit` exactly as the spec words it: an integer from 1 to the endpoint's maximum. */
export function parseLimit(value: string | null, options: { default: number; max: number }): number {
  if (value === null) return options.default
  if (!/^\d+$/.test(value))
    throw new InvalidInputError(`limit must be an integer between 1 and ${options.max}`)
  const limit = Number(value)
  if (limit < 1 || limit > options.max)
    throw new InvalidInputError(`limit must be an integer between 1 and ${options.max}`)
  return limit
}

export function parseIssueStatus(value: unknown): IssueStatus {
  if (typeof value === 'string' && (ISSUE_STATUSES as readonly string[]).includes(value))
    return value as IssueStatus
  throw new InvalidInputError(INVALID_STATUS)
}

/** A cursor query parameter; an empty one means "first page". */
export function parseCursor(value: string | null): string | undefined {
  return value?.trim() ? value.trim() : undefined
}
