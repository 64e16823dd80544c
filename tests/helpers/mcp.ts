import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { expect } from 'vitest'
import * as route from '@/app/api/mcp/route'

type Handler = (req: Request) => Promise<Response> | Response

const HANDLERS: Record<string, Handler> = {
  POST: route.POST,
  GET: route.GET,
  DELETE: route.DELETE,
  OPTIONS: route.OPTIONS,
}

async function readBody(req: IncomingMessage): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return new Uint8Array(Buffer.concat(chunks))
}

/** IncomingMessage → web Request → the route handler → Response → ServerResponse, as Next does. */
async function forward(origin: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const handler = HANDLERS[req.method ?? '']
  if (!handler) {
    res.writeHead(405).end()
    return
  }
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers))
    if (typeof value === 'string') headers.set(name, value)
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v)
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readBody(req)
  const response = await handler(
    new Request(new URL(req.url ?? '/', origin), { method: req.method, headers, body }),
  )
  res.writeHead(response.status, Object.fromEntries(response.headers))
  // Streamed chunk by chunk, so an SSE answer would pass through as it is written.
  const reader = response.body?.getReader()
  for (let next = await reader?.read(); next && !next.done; next = await reader?.read()) res.write(next.value)
  res.end()
}

export interface McpTestServer {
  /** The MCP endpoint on the loopback server. */
  url: URL
  close: () => Promise<void>
}

/** A tiny HTTP server on 127.0.0.1 that serves /api/mcp from the route module. */
export async function startMcpServer(): Promise<McpTestServer> {
  let origin = ''
  const server: Server = createServer((req, res) => {
    forward(origin, req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error))
    })
  })
  // The client (fetch) drops an idle kept-alive socket after about 4 s. Node's server closes one
  // after 5 s: on a loaded machine the two ends raced, and a request sent on a socket the server
  // was closing failed with ECONNRESET. The server now always outlasts the client.
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url: new URL('/api/mcp', origin),
    close: () => new Promise((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  }
}

/** The MCP SDK's own client, connected (initialize + initialized) with a bearer credential. */
export async function connectClient(url: URL, token: string): Promise<Client> {
  const client = new Client({ name: 'mcp-integration-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  })
  await client.connect(transport)
  return client
}

/** The readable text of a tool result (the tools answer one text block). */
export function textOf(result: CallToolResult | { content?: unknown }): string {
  const content = (result.content ?? []) as { type: string; text?: string }[]
  return content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n')
}

/** A raw JSON-RPC POST, for checking HTTP-level answers the SDK client hides. */
export function rawPost(url: URL, headers: Record<string, string>, body?: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(
      body ?? {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1.0.0' },
        },
      },
    ),
  })
}

/**
 * A result's text read the way the agent is told to: the id its note names, the texts between
 * that id's markers (found by plain search) and everything outside them.
 */
export function marked(result: CallToolResult) {
  const text = textOf(result)
  const id = /untrusted-data markers \(id "([0-9a-f]{16})" in this result\)/.exec(text)?.[1]
  expect(id, text).toBeDefined()
  const open = `<untrusted-data id="${id}">`
  const close = `</untrusted-data id="${id}">`
  const spans: string[] = []
  let outside = ''
  let from = 0
  for (let at = text.indexOf(open); at !== -1; at = text.indexOf(open, from)) {
    const end = text.indexOf(close, at + open.length)
    expect(end, 'every opening marker is closed').toBeGreaterThan(at)
    spans.push(text.slice(at + open.length, end))
    outside += text.slice(from, at)
    from = end + close.length
  }
  outside += text.slice(from)
  return { id: id!, spans, outside, wrap: (value: string) => `${open}${value}${close}` }
}
