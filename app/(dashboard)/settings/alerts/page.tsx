import type { Metadata } from 'next'
import Link from 'next/link'
import { When } from '@/app/(dashboard)/_components/when'
import { destinations, listRules } from '@/lib/alerts/history'
import { ALERT_TRIGGER_LABELS, alertFiltersText } from '@/lib/alerts/vocabulary'
import { getDb } from '@/lib/db'
import { requireMember } from '@/lib/http/session'
import { allSavedSearches } from '@/lib/saved-searches/saved-searches'
import { RuleActions } from './rule-actions'
import { RuleForm } from './rule-form'

export const metadata: Metadata = { title: 'Alerts' }

export default async function AlertsPage() {
  const { organization } = await requireMember('/settings/alerts')
  const header = (
    <section>
      <h1>Alerts</h1>
      <p className="muted">
        Messages in Slack or to a webhook endpoint when issues appear, regress or spike, or a signal matches;
        at most a set number per window, the rest in one digest when the window ends.
      </p>
    </section>
  )
  if (organization.role !== 'owner')
    return (
      <>
        {header}
        <section className="card">
          <p>Only organization owners can manage alert rules.</p>
        </section>
      </>
    )
  const db = await getDb()
  const [rules, targets, searches] = await Promise.all([
    listRules(db, organization.id),
    destinations(db, organization.id),
    allSavedSearches(db, organization.id),
  ])
  const searchNames = new Map(searches.map((s) => [s.id, s.name]))
  return (
    <>
      {header}
      <section className="card">
        <h2>New rule</h2>
        {targets.length === 0 ? (
          <p className="alert alert-info">
            Add a Slack integration or a <Link href="/settings/webhooks">webhook endpoint</Link> first: a rule
            needs somewhere to send.
          </p>
        ) : null}
        <RuleForm destinations={targets} savedSearches={searches} />
      </section>
      {rules.map(({ rule, ...r }) => {
        const destination = rule.integrationId
          ? `Slack: ${r.integrationName ?? 'deleted'}${r.integrationRevokedAt ? ' (revoked)' : ''}`
          : `Webhook: ${r.endpointName ?? 'deleted'}${r.endpointRevokedAt ? ' (revoked)' : ''}`
        return (
          <section className="card" key={rule.id} data-testid="alert-rule">
            <h2>
              <Link href={`/settings/alerts/${rule.id}`}>{rule.name}</Link>{' '}
              {rule.pausedAt ? <span className="badge badge-off">paused</span> : null}
            </h2>
            <p>
              {ALERT_TRIGGER_LABELS[rule.trigger]} · {alertFiltersText(rule.filters, searchNames)} ·{' '}
              {destination}
            </p>
            <p>
              {rule.mode === 'digest'
                ? `One digest per ${rule.windowMinutes} min`
                : `Up to ${rule.maxPerWindow} per ${rule.windowMinutes} min, the rest in a digest`}
              {' · '}cooldown {rule.issueCooldownMinutes} min per issue · last activity{' '}
              <When date={r.lastActivityAt} empty="none yet" />
            </p>
            <RuleActions ruleId={rule.id} name={rule.name} paused={rule.pausedAt !== null} />
          </section>
        )
      })}
    </>
  )
}
