import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { Db } from '@/db/client'
import { isPublicError, logUnexpected } from '@/lib/error-table'
import { ForbiddenError, RateLimitedError } from '@/lib/errors'
import { getRateLimiter } from '@/lib/ratelimit'
import { DATA_API_BUDGETS } from '@/lib/ratelimit/policies'
import { withinTextBudget } from './answer-budget'
import { principalOf } from './auth-info'
import type { McpTool } from './tool'

function textResult(text: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) }
}

/**
 * The error table's classes are the caller's to fix (not found, bad cursor, missing scope, rate
 * limit): the model gets the same message the Data API would answer, as a tool error it can
 * act on. Anything else is our fault: logged with the request id, and the model gets only a
 * generic message naming that id.
 */
function toolError(error: unknown, tool: string, requestId: string): CallToolResult {
  if (error instanceof RateLimitedError)
    return textResult(`${error.message}: retry in ${error.retryAfterSeconds} seconds`, true)
  if (isPublicError(error)) return textResult(error.message, true)
  logUnexpected(error, 'MCP tool call failed', { requestId, tool })
  return textResult(`Internal error while running ${tool} (request id ${requestId})`, true)
}

/**
 * Runs one tool call as the Data API runs one request: the call spends the principal's read
 * or write budget first (the same counters as /api/v1, so the two surfaces share one
 * limit), then the tool's scopes are checked, then the handler runs.
 */
export async function runTool(
  tool: McpTool,
  args: unknown,
  request: { db: Db; requestId: string; authInfo: AuthInfo | undefined },
): Promise<CallToolResult> {
  try {
    const principal = principalOf(request.authInfo)
    const limit = await getRateLimiter().limit(DATA_API_BUDGETS[tool.budget], principal.rateLimitKey)
    if (!limit.success) throw new RateLimitedError('Rate limit exceeded', limit.retryAfterSeconds)
    const missing = tool.requiredScopes.find((scope) => !principal.scopes.includes(scope))
    if (missing) throw new ForbiddenError(`Missing required scope: ${missing}`)
    const output = await tool.run(args, { db: request.db, principal, requestId: request.requestId })
    return { ...textResult(withinTextBudget(output.text)), structuredContent: output.structured }
  } catch (error) {
    return toolError(error, tool.name, request.requestId)
  }
}
