import { listAuditEventsRequest } from '@/lib/api/audit-events'
import { dataApiRoute } from '@/lib/http/data-api'

// Privacy keys read the trail: who viewed, exported or erased is for the same hands as erasure.
export const GET = dataApiRoute({ scope: 'write:privacy', limit: 'read' }, listAuditEventsRequest)
