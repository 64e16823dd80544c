import type { Metadata } from 'next'
import { getDb } from '@/lib/db'
import { requireMember } from '@/lib/http/session'
import { MASK_BUILT_INS } from '@/lib/privacy/mask-patterns'
import { getMaskSettings } from '@/lib/privacy/mask-settings'
import { listRemaskings } from '@/lib/privacy/remaskings'
import { countsText, requestStatus, utcTime } from '../_components/privacy-requests'
import { MaskSettingsForm } from './mask-settings-form'
import { RemaskForm } from './remask-form'

export const metadata: Metadata = { title: 'Masking' }

const when = (iso: string | null) => (iso ? utcTime(iso) : 'any time')

/**
 * Masking added after the fact (docs/privacy.md#re-masking): the organization's mask settings,
 * applied to new recordings, and re-masking of stored ones. Owners change them; members read.
 */
export default async function MaskingPage() {
  const member = await requireMember('/settings/masking')
  const isOwner = member.organization.role === 'owner'
  const db = await getDb()
  const [settings, remaskings] = await Promise.all([
    getMaskSettings(db, member.organization.id),
    listRemaskings(db, member.organization.id),
  ])
  return (
    <>
      <section>
        <h1>Masking</h1>
        <p className="muted">
          When the recorder's masking missed something, mask it here: CSS selectors (tag, #id, .class, [attr],
          [attr=value], descendant and &gt; combinators) mask the text and values of matching elements;
          patterns mask text anywhere — a literal, ~literal ignoring case, or{' '}
          {Object.keys(MASK_BUILT_INS).join(', ')}.
        </p>
      </section>
      <section className="card" aria-labelledby="mask-settings-heading">
        <h2 id="mask-settings-heading">New recordings</h2>
        <p className="muted">
          Applied to every batch before it is stored; the selectors are also sent to the recorder, which masks
          them in the browser from its next batch on.
        </p>
        {isOwner ? (
          <MaskSettingsForm selectors={settings.selectors} patterns={settings.patterns} />
        ) : (
          <>
            <p className="alert alert-info" data-testid="masking-owners-only">
              Only owners can change masking. Ask an owner of this organization.
            </p>
            <p>Selectors: {settings.selectors.length > 0 ? settings.selectors.join(', ') : 'none'}</p>
            <p>Patterns: {settings.patterns.length} set</p>
          </>
        )}
      </section>
      <section className="card" aria-labelledby="remask-heading">
        <h2 id="remask-heading">Re-mask stored sessions</h2>
        <p className="muted">
          Rewrites the recordings, timelines, network details, evidence and issue texts of sessions started in
          the range, and gives each changed session a new encryption key, so earlier copies (backups) can no
          longer be read.
        </p>
        {isOwner ? <RemaskForm /> : null}
        {remaskings.length === 0 ? (
          <p className="empty-state muted" data-testid="no-remaskings">
            No re-maskings yet.
          </p>
        ) : (
          <table className="table" data-testid="remaskings">
            <thead>
              <tr>
                <th scope="col">Requested</th>
                <th scope="col">Rules</th>
                <th scope="col">Sessions started</th>
                <th scope="col">Status</th>
                <th scope="col">Changed</th>
              </tr>
            </thead>
            <tbody>
              {remaskings.map((item) => (
                <tr key={item.id}>
                  <td>{when(item.createdAt)}</td>
                  <td>{[...item.selectors, ...item.patterns].join(', ')}</td>
                  <td>
                    {when(item.from)} – {when(item.to)}
                  </td>
                  <td>{requestStatus(item)}</td>
                  <td>{countsText(item.counts)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  )
}
