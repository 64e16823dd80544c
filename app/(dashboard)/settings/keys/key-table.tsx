import { exactTime } from '@/app/(dashboard)/_components/time-format'
import { When } from '@/app/(dashboard)/_components/when'
import type { KeySummary } from '@/lib/credentials/list-keys'
import { ConfirmButton } from '../_components/confirm-button'
import styles from '../_components/settings.module.css'
import { revokeKeyAction } from './actions'

const SCOPE_LABELS: Record<string, string> = {
  'read:service': 'read',
  'write:issues': 'update status',
  'write:sourcemaps': 'upload source maps',
  'write:verifications': 'report reproduction results',
  ingest: 'ingest',
}

/** Keys of one kind: only their prefix, never the key; revoked keys stay listed as revoked. */
export function KeyTable({
  keys,
  kindLabel,
  showScopes,
  canRevoke,
  consequence,
}: {
  keys: KeySummary[]
  kindLabel: string
  showScopes: boolean
  canRevoke: boolean
  consequence: string
}) {
  return (
    <div className={`table-wrap ${styles.contained}`}>
      <table className="table">
        <thead>
          <tr>
            <th>Key</th>
            {showScopes ? <th>Access</th> : null}
            <th className="optional">Created</th>
            <th className="optional">Last used</th>
            <th>Status</th>
            <th>
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id} data-testid={`${key.type}-key-row`}>
              <td>
                <span className={styles.person}>
                  <span>{key.name}</span>
                  <code className="muted">{key.displayPrefix}</code>
                </span>
              </td>
              {showScopes ? (
                <td>
                  {key.scopes.map((scope) => (
                    <span className="badge" key={scope} title={scope}>
                      {SCOPE_LABELS[scope] ?? scope}
                    </span>
                  ))}
                </td>
              ) : null}
              <td className="optional">
                <When date={key.createdAt} />
              </td>
              <td className="optional">
                <When date={key.lastUsedAt} />
              </td>
              <td>
                {key.revokedAt ? (
                  <span className="badge badge-off" title={`Revoked ${exactTime(key.revokedAt)}`}>
                    revoked
                  </span>
                ) : (
                  <span className="badge badge-ok">active</span>
                )}
              </td>
              <td>
                {canRevoke && !key.revokedAt ? (
                  <ConfirmButton
                    action={revokeKeyAction.bind(null, key.id)}
                    confirm={`Revoke the ${kindLabel} “${key.name}”? ${consequence} This cannot be undone.`}
                    label="Revoke"
                    pendingLabel="Revoking…"
                    accessibleLabel={`Revoke ${key.name}`}
                    danger
                  />
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
