import { buildOpenApiDocument } from '@/lib/api/openapi'
import { getConfig } from '@/lib/config'
import { ANY_ORIGIN } from './cors'

let cached: string | undefined

/** The public OpenAPI document; built once per process from the zod schemas. */
export function openApiResponse(): Response {
  const { baseUrl, ingestUrl } = getConfig()
  cached ??= JSON.stringify(buildOpenApiDocument({ baseUrl, ingestUrl }))
  return new Response(cached, {
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'public, max-age=300',
      ...ANY_ORIGIN,
    },
  })
}
