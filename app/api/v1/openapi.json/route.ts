import { openApiResponse } from '@/lib/http/openapi'

export const GET = openApiResponse
