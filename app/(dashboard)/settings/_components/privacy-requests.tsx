import type { PersonKind } from '@/db/schema/privacy'

/**
 * What the privacy pages (Settings → Privacy, Settings → Masking) show alike about their
 * background requests — erasures, exports, re-maskings — and the fields naming one person.
 */
export const PERSON_KIND_LABELS: Record<PersonKind, string> = {
  email: 'e-mail',
  user_id: 'user id',
  anonymous_id: 'anonymous id',
}

/** A request's counts as `name n, …`, leaving out what it did not touch. */
export const countsText = (counts: Record<string, number>) =>
  Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ') || '—'

/** A request that failed an attempt shows it is being retried, not that it is stuck. */
export const requestStatus = (item: { status: string; error: string | null }) =>
  item.error && item.status !== 'completed' ? `${item.status} (retrying)` : item.status

export const utcTime = (iso: string) => `${new Date(iso).toLocaleString('en-GB', { timeZone: 'UTC' })} UTC`

/** The two fields a privacy request names its person with (the Data API's `{email}` etc.). */
export function PersonFields({ idPrefix }: { idPrefix: string }) {
  return (
    <>
      <div className="field">
        <label htmlFor={`${idPrefix}-identifier`}>Named by</label>
        <select className="input" id={`${idPrefix}-identifier`} name="identifier" defaultValue="email">
          <option value="email">E-mail</option>
          <option value="userId">User id</option>
          <option value="anonymousId">Anonymous id</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${idPrefix}-value`}>Identifier</label>
        <input
          className="input"
          id={`${idPrefix}-value`}
          name="value"
          required
          maxLength={512}
          autoComplete="off"
        />
      </div>
    </>
  )
}
