import { getExportRequest } from '@/lib/api/exports'
import { dataApiRoute } from '@/lib/http/data-api'

export const GET = dataApiRoute({ scope: 'write:privacy', limit: 'read' }, getExportRequest)
