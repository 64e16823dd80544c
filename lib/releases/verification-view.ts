import { z } from 'zod'
import { VERIFICATION_RUNNERS, VERIFICATION_STATUSES } from './verification-vocabulary'

/**
 * One reproduction run as the Data API, MCP and the issue page show it
 * (docs/releases.md#verification). `baseUrl` and `summary` are the runner's words: a summary
 * quotes Playwright's failure output, which may quote literals from a recorded page.
 */
export const Verification = z.object({
  id: z.uuid(),
  status: z.enum(VERIFICATION_STATUSES),
  release: z
    .string()
    .nullable()
    .meta({ description: 'The release of the deployment under test, when named' }),
  baseUrl: z.string().meta({ description: 'The deployment the reproduction ran against (REPRO_BASE_URL)' }),
  summary: z
    .string()
    .nullable()
    .meta({ description: "The runner's failure messages, at most 4000 characters" }),
  durationMs: z.number().int().nullable(),
  runner: z.enum(VERIFICATION_RUNNERS),
  createdAt: z.iso.datetime({ offset: true }),
})
export type Verification = z.infer<typeof Verification>
