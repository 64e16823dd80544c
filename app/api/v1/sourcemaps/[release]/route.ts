import { deleteReleaseRequest, listReleaseFilesRequest } from '@/lib/api/sourcemaps'
import { dataApiRoute } from '@/lib/http/data-api'

export const GET = dataApiRoute({ scope: 'read:service', limit: 'read' }, listReleaseFilesRequest)
export const DELETE = dataApiRoute({ scope: 'write:sourcemaps', limit: 'write' }, deleteReleaseRequest)
