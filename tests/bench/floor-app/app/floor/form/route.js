import { floorFormAnswer } from '../../../payload.js'

// The least a form endpoint (the OAuth token endpoint) must do: read, parse, answer ~1 KB.
export const dynamic = 'force-dynamic'

export async function POST(request) {
  const params = new URLSearchParams(await request.text())
  let fields = 0
  for (const _ of params.keys()) fields++
  return new Response(floorFormAnswer(fields), {
    status: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  })
}

export function OPTIONS() {
  return new Response(null, { status: 204 })
}
