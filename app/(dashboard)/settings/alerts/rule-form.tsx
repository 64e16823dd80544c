'use client'

import { startTransition, useActionState, useEffect, useRef } from 'react'
import { SavedSearchOptions } from '@/app/(dashboard)/_components/saved-search-options'
import type { alertRules } from '@/db/schema'
import { ALERT_PRIORITY_CHOICES, ALERT_TRIGGER_CHOICES, ALERT_TRIGGER_LABELS } from '@/lib/alerts/vocabulary'
import { ISSUE_KIND_LABELS, ISSUE_KINDS } from '@/lib/issues/kinds'
import styles from '../_components/settings.module.css'
import { type ActionResult, createRuleAction, updateRuleAction } from './actions'

/**
 * The new-rule form, or the edit form of `rule`; the domain validates everything again and
 * answers with clear messages.
 */
export function RuleForm({
  destinations,
  savedSearches,
  rule,
}: {
  destinations: { value: string; label: string }[]
  /** The organization's saved searches, for the filter (docs/saved-searches.md). */
  savedSearches: { id: string; name: string }[]
  rule?: typeof alertRules.$inferSelect
}) {
  const [state, action, pending] = useActionState<ActionResult | null, FormData>(
    rule ? updateRuleAction : createRuleAction,
    null,
  )
  const disabled = destinations.length === 0
  const form = useRef<HTMLFormElement>(null)
  // A new rule's form empties once it is created; a refused one keeps what was typed.
  useEffect(() => {
    if (state?.ok && !rule) form.current?.reset()
  }, [state, rule])
  const current = rule
    ? rule.integrationId
      ? `integration:${rule.integrationId}`
      : `endpoint:${rule.endpointId}`
    : undefined
  return (
    <form
      ref={form}
      // Submitted by hand, not through `action={…}`: React resets a form after an action, which
      // would wipe the user's input when the rule is refused.
      onSubmit={(event) => {
        event.preventDefault()
        const data = new FormData(event.currentTarget)
        startTransition(() => action(data))
      }}
    >
      {rule ? <input type="hidden" name="ruleId" value={rule.id} /> : null}
      {state ? (
        <div
          className={`alert ${state.ok ? 'alert-info' : 'alert-error'}`}
          role={state.ok ? 'status' : 'alert'}
        >
          {state.ok ? state.message : state.error}
        </div>
      ) : null}
      <label className="field">
        Name
        <input
          className="input"
          name="name"
          required
          maxLength={64}
          defaultValue={rule?.name}
          disabled={disabled}
        />
      </label>
      <label className="field">
        When
        <select className="input" name="trigger" defaultValue={rule?.trigger} disabled={disabled}>
          {ALERT_TRIGGER_CHOICES.map((t) => (
            <option key={t} value={t}>
              {ALERT_TRIGGER_LABELS[t]}
            </option>
          ))}
        </select>
      </label>
      <fieldset className={styles.choices}>
        <legend>Priorities (none: any)</legend>
        {ALERT_PRIORITY_CHOICES.map((p) => (
          <label key={p}>
            <input
              type="checkbox"
              name="priorities"
              value={p}
              defaultChecked={rule?.filters.priorities?.includes(p)}
              disabled={disabled}
            />{' '}
            {p}
          </label>
        ))}
      </fieldset>
      <fieldset className={styles.choices}>
        <legend>Kinds (none: any)</legend>
        {ISSUE_KINDS.map((k) => (
          <label key={k}>
            <input
              type="checkbox"
              name="kinds"
              value={k}
              defaultChecked={rule?.filters.kinds?.includes(k)}
              disabled={disabled}
            />{' '}
            {ISSUE_KIND_LABELS[k]}
          </label>
        ))}
      </fieldset>
      <label className="field">
        Page URL contains (plain text, optional)
        <input
          className="input"
          name="urlContains"
          maxLength={200}
          placeholder="/checkout"
          defaultValue={rule?.filters.urlContains}
          disabled={disabled}
        />
      </label>
      <label className="field">
        Saved search (only sessions it finds)
        <select
          className="input"
          name="savedSearchId"
          defaultValue={rule?.filters.savedSearchId ?? ''}
          disabled={disabled}
        >
          <SavedSearchOptions savedSearches={savedSearches} />
        </select>
      </label>
      <label className="field">
        Send to
        <select className="input" name="destination" required defaultValue={current} disabled={disabled}>
          {destinations.map((d) => (
            <option key={d.value} value={d.value}>
              {d.label}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        Mode
        <select className="input" name="mode" defaultValue={rule?.mode} disabled={disabled}>
          <option value="immediate">Immediate, up to the limit, then a digest</option>
          <option value="digest">Digest only, one message per window</option>
        </select>
      </label>
      <label className="field">
        Window (minutes)
        <input
          className="input"
          name="windowMinutes"
          type="number"
          min={1}
          max={1440}
          defaultValue={rule?.windowMinutes ?? 10}
          disabled={disabled}
        />
      </label>
      <label className="field">
        Messages per window
        <input
          className="input"
          name="maxPerWindow"
          type="number"
          min={0}
          max={100}
          defaultValue={rule?.maxPerWindow ?? 5}
          disabled={disabled}
        />
      </label>
      <label className="field">
        Cooldown per issue (minutes)
        <input
          className="input"
          name="issueCooldownMinutes"
          type="number"
          min={0}
          max={10080}
          defaultValue={rule?.issueCooldownMinutes ?? 60}
          disabled={disabled}
        />
      </label>
      <button className="btn btn-primary" type="submit" disabled={disabled || pending}>
        {pending ? 'Saving…' : rule ? 'Save rule' : 'Create rule'}
      </button>
    </form>
  )
}
