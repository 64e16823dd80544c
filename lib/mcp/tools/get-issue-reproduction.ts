import { z } from 'zod'
import { SCOPES } from '@/lib/credentials/scopes'
import { getIssueReproduction } from '@/lib/reproduction/get-reproduction'
import { Reproduction } from '@/lib/reproduction/views'
import { issueIdInput } from '../inputs'
import { defineTool } from '../tool'
import { UNTRUSTED_TOOL_NOTE, type UntrustedMarkers, untrustedMarkers } from '../untrusted'

function reproductionText(reproduction: Reproduction, untrusted: UntrustedMarkers): string {
  const source = reproduction.sessionId
    ? `from session ${reproduction.sessionId}`
    : 'from the issue alone (no usable recorded session)'
  return [
    untrusted.note,
    `Reproduction of issue ${reproduction.issueId}, ${source}: ${reproduction.steps} replayed steps. Save it as ${reproduction.filename}, read it, and run it only against a local or staging copy of the site, never production: \`REPRO_BASE_URL=http://localhost:3000 npx playwright test ${reproduction.filename}\` (it refuses to run without REPRO_BASE_URL). It fails while the bug is there and passes once it is fixed. It aborts every navigation away from that site and keeps Chromium's sandbox on (set REPRO_NO_SANDBOX=1 only where it runs as root).`,
    // The test quotes element names, URLs and messages of the recorded page.
    `\n\`\`\`ts\n${untrusted.wrap(reproduction.test)}\n\`\`\``,
    reproduction.limitations.length > 0
      ? `\nLimitations:\n${reproduction.limitations.map((line) => `- ${untrusted.wrap(line)}`).join('\n')}`
      : '\nLimitations: none known.',
  ].join('\n')
}

/** GET /api/v1/issues/{issueId}/reproduction as a tool. */
export const getIssueReproductionTool = defineTool({
  name: 'get_issue_reproduction',
  title: 'Get issue reproduction',
  description: [
    'Get a runnable Playwright test (TypeScript, @playwright/test) that reproduces an issue from its best recorded',
    'session: it opens the page the user was on, repeats their last clicks and inputs (masked values come from',
    'REPRO_* environment variables) and asserts the correct behaviour at the failing moment, so it fails now and',
    'passes once the bug is fixed. It has no default site: run it with REPRO_BASE_URL pointing at a local or staging',
    'copy of the site, never production. Read the limitations before relying on it. Use it after get_issue, before fixing.',
    UNTRUSTED_TOOL_NOTE,
  ].join(' '),
  inputSchema: z.object({ issueId: issueIdInput }),
  outputSchema: z.object({ reproduction: Reproduction }),
  requiredScopes: [SCOPES.read],
  budget: 'read',
  annotations: {
    title: 'Get issue reproduction',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async handler(input, { db, principal }) {
    const reproduction = await getIssueReproduction(db, principal, input.issueId)
    return { structured: { reproduction }, text: reproductionText(reproduction, untrustedMarkers()) }
  },
})
