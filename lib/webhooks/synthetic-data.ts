import { randomUUID } from 'node:crypto'
import type { WebhookData, WebhookEvent } from './events'

/** Data of a Send test event: the real shape, with made-up ids and an obvious title. */
export function syntheticData<E extends WebhookEvent>(event: E, orgId: string): WebhookData<E> {
  return syntheticDataOf(event, orgId) as WebhookData<E>
}

function syntheticDataOf(event: WebhookEvent, orgId: string): WebhookData<WebhookEvent> {
  const issue: WebhookData<'issue.created'> = {
    issueId: randomUUID(),
    orgId,
    title: 'Test event: TypeError in checkout',
    description: 'A synthetic issue sent with "Send test" from the webhook settings.',
    status: 'unresolved',
    priority: 'high',
    previewUrl: null,
    aiVerified: null,
    sourceType: 'session_analysis',
  }
  switch (event) {
    case 'issue.created':
      return issue
    case 'issue.status_changed':
      return { ...issue, status: 'resolved', previousStatus: 'unresolved', actorType: 'user' }
    case 'issue.recurred': {
      const sessionId = randomUUID()
      return { ...issue, sessionId, replayUrl: `https://replay.example.com/sessions/${sessionId}?t=7250` }
    }
    case 'issue.regressed': {
      const sessionId = randomUUID()
      return {
        ...issue,
        sessionId,
        replayUrl: `https://replay.example.com/sessions/${sessionId}?t=7250`,
        release: '3.3.0',
        resolvedInRelease: '3.2.0',
      }
    }
    case 'issue.verified':
      return {
        ...issue,
        status: 'resolved',
        verificationId: randomUUID(),
        release: '3.2.0',
        baseUrl: 'https://preview.example.com',
        runner: 'playwright',
      }
    case 'signal.matched':
      return { signalId: randomUUID(), sessionId: randomUUID(), orgId }
    case 'insight.generated':
      return {
        insightId: randomUUID(),
        orgId,
        intervalStart: new Date(Date.now() - 86_400_000).toISOString(),
      }
  }
}
