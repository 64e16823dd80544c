import { pinSessionRequest, unpinSessionRequest } from '@/lib/api/session-pin'
import { dataApiRoute } from '@/lib/http/data-api'

// Pinning is part of working on an issue (members pin in the dashboard), so write:issues.
export const PUT = dataApiRoute<{ sessionId: string }>(
  { scope: 'write:issues', limit: 'write' },
  pinSessionRequest,
)
export const DELETE = dataApiRoute<{ sessionId: string }>(
  { scope: 'write:issues', limit: 'write' },
  unpinSessionRequest,
)
