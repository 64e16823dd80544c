import { z } from 'zod'
import { actorOfPrincipal } from '@/lib/actor'
import { InvalidInputError } from '@/lib/errors'
import { recordVerification } from '@/lib/issues/verifications'
import { VERIFICATION_RUNNERS, VERIFICATION_STATUSES } from '@/lib/releases/verification-vocabulary'
import { MAX_BASE_URL_LENGTH, MAX_DURATION_MS, MAX_SUMMARY_CHARACTERS } from '@/lib/releases/verifications'
import { type ApiRequest, bodyField } from './request'

/** The request body, for the OpenAPI document; parsing is recordVerification's own. */
export const RecordVerificationBody = z.object({
  status: z.enum(VERIFICATION_STATUSES),
  baseUrl: z.string().max(MAX_BASE_URL_LENGTH).meta({
    description: 'The http(s) address the reproduction ran against, without a user name or password',
  }),
  release: z.string().optional().meta({ description: 'The release the deployment under test runs' }),
  summary: z.string().max(MAX_SUMMARY_CHARACTERS).optional().meta({
    description:
      'What the runner printed about a failure; control characters but newline and tab are removed',
  }),
  durationMs: z.number().int().min(0).max(MAX_DURATION_MS).optional(),
  runner: z.enum(VERIFICATION_RUNNERS).optional().meta({ description: 'Default playwright' }),
})

/** POST /api/v1/issues/{issueId}/verifications (answered 201) */
export async function recordVerificationRequest({
  db,
  principal,
  params,
  body,
}: ApiRequest<{ issueId: string }>) {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new InvalidInputError('The body must be a JSON object')
  const verification = await recordVerification(db, actorOfPrincipal(principal), {
    issueId: params.issueId,
    status: bodyField(body, 'status'),
    baseUrl: bodyField(body, 'baseUrl'),
    release: bodyField(body, 'release'),
    summary: bodyField(body, 'summary'),
    durationMs: bodyField(body, 'durationMs'),
    runner: bodyField(body, 'runner') ?? 'playwright',
  })
  return { verification }
}
