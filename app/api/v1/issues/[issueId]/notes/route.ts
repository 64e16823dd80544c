import { addNoteRequest, listNotesRequest } from '@/lib/api/issue-notes'
import { dataApiRoute } from '@/lib/http/data-api'

export const GET = dataApiRoute({ scope: 'read:service', limit: 'read' }, listNotesRequest)
export const POST = dataApiRoute(
  { scope: 'write:issues', limit: 'write', body: 'json', status: 201 },
  addNoteRequest,
)
