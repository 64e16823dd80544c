import { linkTicketRequest } from '@/lib/api/issue-ticket'
import { dataApiRoute } from '@/lib/http/data-api'

export const PUT = dataApiRoute({ scope: 'write:issues', limit: 'write', body: 'json' }, linkTicketRequest)
