import { recordVerificationRequest } from '@/lib/api/verifications'
import { dataApiRoute } from '@/lib/http/data-api'

export const POST = dataApiRoute(
  { scope: 'write:verifications', limit: 'write', body: 'json', status: 201 },
  recordVerificationRequest,
)
