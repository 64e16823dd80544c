import { getConfig } from '@/lib/config'
import { corsPreflight, oauthCors, withCors } from '@/lib/http/cors'
import { json } from '@/lib/http/respond'
import { authorizationServerMetadata, isMetadataSuffix } from '@/lib/oauth/metadata'

/** RFC 8414 metadata, public and CORS-open, also at the path-inserted MCP form. */
export async function GET(_req: Request, { params }: { params: Promise<{ path?: string[] }> }) {
  const found = isMetadataSuffix((await params).path)
  return withCors(
    found ? json(authorizationServerMetadata(getConfig())) : json({ error: 'Not found' }, 404),
    oauthCors(['GET']),
  )
}

export const OPTIONS = corsPreflight(oauthCors(['GET']))
