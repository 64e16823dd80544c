import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { When } from '@/app/(dashboard)/_components/when'
import { destinations, ruleHistory } from '@/lib/alerts/history'
import { ALERT_TRIGGER_LABELS, alertFiltersText } from '@/lib/alerts/vocabulary'
import { getDb } from '@/lib/db'
import { requireMember } from '@/lib/http/session'
import { allSavedSearches } from '@/lib/saved-searches/saved-searches'
import { RuleForm } from '../rule-form'

export const metadata: Metadata = { title: 'Alert rule history' }

const DECISION_LABELS = { sent: 'sent', digest: 'in digest', held_cooldown: 'held (cooldown)' } as const

/** What a rule did: every event it looked at, with its decision, and every message it sent with its delivery. */
export default async function AlertRuleHistoryPage({ params }: { params: Promise<{ ruleId: string }> }) {
  const { ruleId } = await params
  const { organization } = await requireMember(`/settings/alerts/${ruleId}`)
  // As on Settings → Alerts and Webhooks: rules, their history and deliveries are owners' only.
  if (organization.role !== 'owner')
    return (
      <>
        <section>
          <p>
            <Link href="/settings/alerts">← Alerts</Link>
          </p>
          <h1>Alert rule</h1>
        </section>
        <section className="card">
          <p>Only organization owners can manage alert rules.</p>
        </section>
      </>
    )
  const db = await getDb()
  const history = await ruleHistory(db, organization.id, ruleId)
  if (!history) notFound()
  const { rule, events, messages } = history
  const [targets, searches] = await Promise.all([
    destinations(db, organization.id),
    allSavedSearches(db, organization.id),
  ])
  return (
    <>
      <section>
        <p>
          <Link href="/settings/alerts">← Alerts</Link>
        </p>
        <h1>{rule.name}</h1>
        <p className="muted">
          {ALERT_TRIGGER_LABELS[rule.trigger]} ·{' '}
          {alertFiltersText(rule.filters, new Map(searches.map((s) => [s.id, s.name])))} · {rule.mode} · the
          latest {events.length} events and {messages.length} messages
        </p>
      </section>
      <section className="card">
        <details>
          <summary>Edit rule</summary>
          <RuleForm destinations={targets} savedSearches={searches} rule={rule} />
        </details>
      </section>
      <section className="card">
        <h2>Messages</h2>
        {messages.length === 0 ? (
          <p className="muted">No message sent yet.</p>
        ) : (
          <table className="table" data-testid="alert-messages">
            <thead>
              <tr>
                <th>Sent</th>
                <th>Kind</th>
                <th>Items</th>
                <th>Delivery</th>
              </tr>
            </thead>
            <tbody>
              {messages.map((m) => (
                <tr key={m.id}>
                  <td>
                    <When date={m.createdAt} />
                  </td>
                  <td>
                    {m.kind === 'digest'
                      ? `digest of the window from ${m.windowStart?.toISOString().slice(11, 16)} UTC`
                      : 'single'}
                  </td>
                  <td>{m.items}</td>
                  <td>
                    {m.status ?? 'not queued (destination inactive)'}
                    {m.attempts > 0 ? ` · ${m.attempts} attempt${m.attempts === 1 ? '' : 's'}` : ''}
                    {m.lastError ? ` · ${m.lastError}` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="card">
        <h2>Events</h2>
        {events.length === 0 ? (
          <p className="muted">Nothing has matched this rule yet.</p>
        ) : (
          <table className="table" data-testid="alert-events">
            <thead>
              <tr>
                <th>When</th>
                <th>What</th>
                <th>Decision</th>
              </tr>
            </thead>
            <tbody>
              {events.map((e) => (
                <tr key={e.id}>
                  <td>
                    <When date={e.createdAt} />
                  </td>
                  <td>
                    {e.issueId ? (
                      <Link href={`/issues/${e.issueId}`}>{e.title}</Link>
                    ) : e.signalId ? (
                      <Link href={`/signals/${e.signalId}`}>{e.title}</Link>
                    ) : (
                      e.title
                    )}
                  </td>
                  <td>{DECISION_LABELS[e.decision]}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  )
}
