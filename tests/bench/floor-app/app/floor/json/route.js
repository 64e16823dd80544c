import { floorJson } from '../../../payload.js'

// The least a JSON route of ours must do: read the body, parse it, answer.
export const dynamic = 'force-dynamic'

const json = { 'content-type': 'application/json' }

export async function POST(request) {
  try {
    JSON.parse(await request.text())
  } catch {
    return new Response('{"error":"invalid json"}', { status: 400, headers: json })
  }
  return new Response('{"ok":true}', { status: 200, headers: json })
}

export function GET(request) {
  const bytes = Number(request.nextUrl.searchParams.get('bytes') ?? '0')
  return new Response(floorJson(bytes), { status: 200, headers: json })
}

export function OPTIONS() {
  return new Response(null, { status: 204 })
}
