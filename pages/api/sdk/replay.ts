import type { IncomingMessage, ServerResponse } from 'node:http'
import { replayIngestNode, replayPreflight } from '@/inngest/replay-ingest'
import { sendToNode } from '@/lib/http/node-door'

/**
 * POST /api/sdk/replay on the Pages Router: the one route where Next's App Router door (the web
 * `Request` and its streams) cost more than the work itself, so the body is read from Node's
 * stream (docs/capacity.md#the-ingest-door). It still deploys as one serverless function.
 */
export const config = { api: { bodyParser: false, externalResolver: true } }

const ALLOWED = 'OPTIONS, POST'

export default async function replay(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === 'POST') return replayIngestNode(req, res)
  if (req.method === 'OPTIONS') return sendToNode(res, replayPreflight(), { requestBodyRead: req.complete })
  // What an App Router route answers for a method it does not export.
  res.writeHead(405, { Allow: ALLOWED }).end()
}
