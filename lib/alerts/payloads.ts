import type { AlertTrigger } from '@/db/schema'
import { type DigestItem, digestMessage, singleAlertMessage } from '@/lib/integrations/slack'
import { issueKindLabel } from '@/lib/issues/kinds'
import { dashboardUrl } from '@/lib/sessions/session-links'
import type { AlertCandidate } from './candidates'
import type { AlertWebhookEvent } from './events'

export const TRIGGER_HEADINGS: Record<AlertTrigger, { one: string; many: string }> = {
  issue_created: { one: 'New issue', many: 'New issues' },
  issue_regressed: { one: 'Issue regressed', many: 'Regressed issues' },
  issue_spiking: { one: 'Issue spiking', many: 'Spiking issues' },
  signal_matched: { one: 'Signal matched', many: 'Signal matches' },
}

export interface RuleRef {
  id: string
  organizationId: string
  name: string
  trigger: AlertTrigger
}

/** "Issue regressed in 3.3.0 (fixed in 3.2.0)" when the releases are known, else the trigger's heading. */
export function singleHeading(trigger: AlertTrigger, c: Pick<AlertCandidate, 'regression'>): string {
  const heading = TRIGGER_HEADINGS[trigger].one
  const release = c.regression?.release
  if (trigger !== 'issue_regressed' || !release) return heading
  const fixedIn = c.regression?.resolvedInRelease
  return `${heading} in ${release}${fixedIn ? ` (fixed in ${fixedIn})` : ''}`
}

export function slackSingleBody(rule: RuleRef, c: AlertCandidate): string {
  return JSON.stringify(
    singleAlertMessage({
      heading: singleHeading(rule.trigger, c),
      ruleName: rule.name,
      title: c.title,
      priority: c.priority,
      // People read Slack: the kind as the dashboard names it (webhook data keeps the id).
      kind: c.kind ? issueKindLabel(c.kind) : null,
      sessions: c.sessions,
      occurrences: c.occurrences,
      evidence: c.evidence,
      issueUrl: c.issueUrl,
      replayUrl: c.replayUrl,
    }),
  )
}

/** `alert.triggered` data (docs/alerts.md). */
export function triggeredData(rule: RuleRef, c: AlertCandidate, eventId: string) {
  return {
    orgId: rule.organizationId,
    ruleId: rule.id,
    ruleName: rule.name,
    trigger: rule.trigger,
    sourceEventId: eventId,
    issueId: c.issueId,
    signalId: c.signalId,
    title: c.title,
    priority: c.priority,
    kind: c.kind,
    sessions: c.sessions,
    occurrences: c.occurrences,
    evidence: c.evidence,
    url: c.issueUrl,
    replayUrl: c.replayUrl,
    /** issue_regressed: the release it came back in and the one it was fixed in, when known. */
    regression: c.regression ?? null,
  }
}

export interface DigestContent {
  windowStart: Date
  /** The window's length as its events recorded it (the rule may have been edited since). */
  windowMinutes: number
  events: number
  subjects: number
  top: (DigestItem & { issueId: string | null; signalId: string | null })[]
}

export function slackDigestBody(rule: RuleRef, d: DigestContent): string {
  return JSON.stringify(
    digestMessage({
      ruleName: rule.name,
      heading: TRIGGER_HEADINGS[rule.trigger].many,
      windowStart: d.windowStart,
      windowMinutes: d.windowMinutes,
      events: d.events,
      subjects: d.subjects,
      top: d.top,
      historyUrl: dashboardUrl(`/settings/alerts/${rule.id}`),
    }),
  )
}

/** `alert.digest` data (docs/alerts.md). */
export function digestData(rule: RuleRef, d: DigestContent) {
  return {
    orgId: rule.organizationId,
    ruleId: rule.id,
    ruleName: rule.name,
    trigger: rule.trigger,
    windowStart: d.windowStart.toISOString(),
    windowEnd: new Date(d.windowStart.getTime() + d.windowMinutes * 60_000).toISOString(),
    events: d.events,
    subjects: d.subjects,
    top: d.top.map((t) => ({
      issueId: t.issueId,
      signalId: t.signalId,
      title: t.title,
      count: t.count,
      url: t.url,
    })),
    more: d.subjects - d.top.length,
  }
}

/** Each alert webhook event's `data` (docs/alerts.md). */
export interface AlertWebhookData {
  'alert.triggered': ReturnType<typeof triggeredData>
  'alert.digest': ReturnType<typeof digestData>
}

/** What one alert message sends: its Slack body, and its webhook event with that event's data. */
export type AlertContent = {
  [E in AlertWebhookEvent]: { slackBody: string; event: E; data: AlertWebhookData[E] }
}[AlertWebhookEvent]
