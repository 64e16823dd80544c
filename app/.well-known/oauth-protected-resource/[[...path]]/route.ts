import { getConfig } from '@/lib/config'
import { corsPreflight, oauthCors, withCors } from '@/lib/http/cors'
import { json } from '@/lib/http/respond'
import { isMetadataSuffix, protectedResourceMetadata } from '@/lib/oauth/metadata'

/** RFC 9728 metadata of /api/mcp, public and CORS-open, also at the path-inserted form. */
export async function GET(_req: Request, { params }: { params: Promise<{ path?: string[] }> }) {
  const found = isMetadataSuffix((await params).path)
  return withCors(
    found ? json(protectedResourceMetadata(getConfig())) : json({ error: 'Not found' }, 404),
    oauthCors(['GET']),
  )
}

export const OPTIONS = corsPreflight(oauthCors(['GET']))
