import { requestExportRequest } from '@/lib/api/exports'
import { dataApiRoute } from '@/lib/http/data-api'

export const POST = dataApiRoute(
  { scope: 'write:privacy', limit: 'write', body: 'json', status: 202 },
  requestExportRequest,
)
