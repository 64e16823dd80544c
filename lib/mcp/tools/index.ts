import type { McpTool } from '../tool'
import { addIssueNoteTool } from './add-issue-note'
import { createTicketTool } from './create-ticket'
import { getIssueTool } from './get-issue'
import { getIssueReproductionTool } from './get-issue-reproduction'
import { getSessionTool } from './get-session'
import { linkIssueTicketTool } from './link-issue-ticket'
import { listInsightsTool } from './list-insights'
import { listIssuesTool } from './list-issues'
import { listSavedSearchesTool } from './list-saved-searches'
import { listSessionsTool } from './list-sessions'
import { listSignalsTool } from './list-signals'
import { reportReproductionResultTool } from './report-reproduction-result'
import { updateIssueTool } from './update-issue'

/** Every tool the MCP endpoint offers, in the order tools/list shows them. */
export const TOOLS: readonly McpTool[] = [
  listIssuesTool,
  getIssueTool,
  getIssueReproductionTool,
  reportReproductionResultTool,
  updateIssueTool,
  listSignalsTool,
  listInsightsTool,
  addIssueNoteTool,
  linkIssueTicketTool,
  createTicketTool,
  listSessionsTool,
  getSessionTool,
  listSavedSearchesTool,
]
