import { reproductionBundleRequest } from '@/lib/api/reproductions'
import { dataApiRoute } from '@/lib/http/data-api'

export const GET = dataApiRoute({ scope: 'read:service', limit: 'read' }, reproductionBundleRequest)
