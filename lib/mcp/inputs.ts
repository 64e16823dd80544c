import { z } from 'zod'
import { ISSUE_STATUSES } from '@/db/schema'
import { INVALID_STATUS } from '@/lib/api/params'

/**
 * Input and output pieces shared by the tools, mirroring the Data API's query parameters.
 * Validation messages are the Data API's, so a model that sends a bad value reads the same
 * words an HTTP client would (the SDK prefixes them with the tool name and field).
 */
export function limitInput(page: { default: number; max: number }) {
  const error = `limit must be an integer between 1 and ${page.max}`
  return z
    .number({ error })
    .int({ error })
    .min(1, { error })
    .max(page.max, { error })
    .default(page.default)
    .describe(`Page size, 1 to ${page.max} (default ${page.default})`)
}

export const cursorInput = z
  .string()
  .optional()
  .describe('Opaque: the nextCursor of the previous page, passed back unchanged. Omit for the first page.')

export const issueStatus = z.enum(ISSUE_STATUSES, { error: INVALID_STATUS })

export const issueIdInput = z.string().describe('The issue id (a UUID), as returned by list_issues')

export const nextCursorOutput = z
  .string()
  .nullable()
  .describe('Pass back as `cursor` for the next page; null on the last page')

/** "There is more" in words a model acts on. */
export function moreLine(tool: string, nextCursor: string | null): string {
  return nextCursor ? `More results: call ${tool} again with cursor "${nextCursor}".` : 'No more results.'
}

export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`
}
