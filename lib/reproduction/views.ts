import { z } from 'zod'

/** GET /api/v1/issues/{issueId}/reproduction and the get_issue_reproduction tool. */
export const Reproduction = z.object({
  issueId: z.uuid(),
  /** The session the steps come from; null when none could be used (built from the issue alone). */
  sessionId: z.uuid().nullable(),
  language: z.literal('typescript'),
  framework: z.literal('@playwright/test'),
  /** A file name to save the test under. */
  filename: z.string(),
  /** The test file. Strings from the recorded page are JSON literals in it; still, read before running. */
  test: z.string(),
  /** What the test could not reproduce (steps behind a login, masked values, left-out steps...). */
  limitations: z.array(z.string()),
  /** Replayed actions, the first page load included. */
  steps: z.number().int(),
})

export type Reproduction = z.infer<typeof Reproduction>
