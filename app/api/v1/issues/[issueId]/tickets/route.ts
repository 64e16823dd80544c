import { createTicketRequest } from '@/lib/api/issue-tickets'
import { dataApiRoute } from '@/lib/http/data-api'

export const POST = dataApiRoute(
  { scope: 'write:issues', limit: 'write', body: 'json', status: 201 },
  createTicketRequest,
)
