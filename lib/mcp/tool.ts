import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import type { z } from 'zod'
import type { Db } from '@/db/client'
import type { Principal } from '@/lib/credentials/resolve-bearer'
import type { Scope } from '@/lib/credentials/scopes'
import type { DataApiBudget } from '@/lib/ratelimit/policies'

/** What a tool handler sees: the caller as the Data API sees it, and the request's id for logs. */
export interface ToolContext {
  db: Db
  principal: Principal
  requestId: string
}

/** A result in two forms: the Data API's JSON body for programs, and text for the model. */
export interface ToolOutput<S> {
  structured: S
  text: string
}

/**
 * One MCP tool as a plain definition (the getsentry/sentry-mcp catalog shape): the schemas
 * describe it to clients, `requiredScopes` and `budget` are enforced by the runner before the
 * handler runs, so a handler only maps input to a domain call and the result to output.
 */
export interface ToolDefinition<I extends z.ZodObject, O extends z.ZodObject> {
  name: string
  title: string
  description: string
  inputSchema: I
  /** Same shape as the Data API's response body, so both surfaces validate alike. */
  outputSchema: O
  requiredScopes: Scope[]
  /** Which Data API rate-limit budget a call spends. */
  budget: DataApiBudget
  annotations: ToolAnnotations
  handler: (input: z.output<I>, ctx: ToolContext) => Promise<ToolOutput<z.output<O>>>
}

/** A definition with its types erased, so tools of different shapes fit one catalog. */
export type McpTool = Omit<ToolDefinition<z.ZodObject, z.ZodObject>, 'handler'> & {
  run: (args: unknown, ctx: ToolContext) => Promise<ToolOutput<Record<string, unknown>>>
}

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  definition: ToolDefinition<I, O>,
): McpTool {
  const { handler, ...rest } = definition
  return {
    ...rest,
    // The SDK has validated the arguments already; parsing the parsed value again costs
    // little and gives the handler its exact type without a cast.
    run: async (args, ctx) => handler(definition.inputSchema.parse(args), ctx),
  }
}
