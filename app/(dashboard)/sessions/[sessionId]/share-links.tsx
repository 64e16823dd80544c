'use client'

import { useState, useTransition } from 'react'
import { RelativeTime } from '@/app/(dashboard)/_components/relative-time'
import { SHARE_LINK_DAYS } from '@/lib/sharing/limits'
import type { ShareLinkItem } from '@/lib/sharing/views'
import { type CreateShareLinkResult, createShareLinkAction, revokeShareLinkAction } from './actions'

const EXPIRY_CHOICES = [1, SHARE_LINK_DAYS.default, 14, SHARE_LINK_DAYS.max]

/** The player's moment (epoch ms) from the attributes it keeps current, or null before it loads. */
function playerMoment(): number | null {
  const player = document.querySelector<HTMLElement>('[data-testid="replay-player"]')
  const start = Number(player?.dataset.start)
  const time = Number(player?.dataset.time ?? 0)
  return Number.isFinite(start) && player?.dataset.start ? start + time : null
}

function formatOffset(ms: number): string {
  const seconds = Math.floor(ms / 1000)
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`
}

function CopyField({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false)
  return (
    <div className="field">
      <label>
        {label}
        <input className="input" readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <button
        className="btn btn-small"
        type="button"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(value)
            setCopied(true)
          } catch {
            setCopied(false)
          }
        }}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  )
}

/**
 * Share: a link that shows this replay to anyone who has it, without an account, until it
 * expires or is revoked (docs/sharing.md). The address is shown once, when it is made.
 */
export function ShareLinks(props: { sessionId: string; startedAt: number; links: ShareLinkItem[] }) {
  const { sessionId, startedAt, links } = props
  const [pending, start] = useTransition()
  const [days, setDays] = useState<number>(SHARE_LINK_DAYS.default)
  const [atMoment, setAtMoment] = useState(false)
  const [created, setCreated] = useState<CreateShareLinkResult | null>(null)
  const [revoked, setRevoked] = useState<string | null>(null)
  const create = () =>
    start(async () => {
      const at = atMoment ? playerMoment() : null
      const startAtMs = at === null ? null : Math.max(0, Math.round(at - startedAt))
      setCreated(await createShareLinkAction(sessionId, days, startAtMs))
    })
  return (
    <section className="card" aria-labelledby="share-heading" data-testid="share-links">
      <h2 id="share-heading">Share</h2>
      <p className="muted">
        A link shows this replay, and nothing else of your organization, to anyone who has it, without an
        account. It stops working when it expires or is revoked.
      </p>
      <div className="toolbar">
        <label>
          Expires after{' '}
          <select className="input" value={days} onChange={(e) => setDays(Number(e.currentTarget.value))}>
            {EXPIRY_CHOICES.map((n) => (
              <option key={n} value={n}>
                {n === 1 ? '1 day' : `${n} days`}
              </option>
            ))}
          </select>
        </label>
        <label>
          <input type="checkbox" checked={atMoment} onChange={(e) => setAtMoment(e.currentTarget.checked)} />{' '}
          Start at the replay's current moment
        </label>
        <button
          className="btn"
          type="button"
          disabled={pending}
          onClick={create}
          data-testid="create-share-link"
        >
          {pending ? 'Creating…' : 'Create link'}
        </button>
      </div>
      {created ? (
        <div role={created.ok ? 'status' : 'alert'}>
          <p className={`alert ${created.ok ? 'alert-ok' : 'alert-error'}`}>
            {created.ok ? created.message : created.error}
          </p>
          {created.ok ? (
            <>
              <CopyField label="Link" value={created.url} />
              <CopyField label="Embed (iframe src)" value={created.embedUrl} />
            </>
          ) : null}
        </div>
      ) : null}
      {revoked ? (
        <p className="muted" role="status">
          {revoked}
        </p>
      ) : null}
      {links.length === 0 ? (
        <p className="muted">No links yet.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Starts at</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {links.map((link) => (
              <tr key={link.id} data-testid="share-link">
                <td>
                  <RelativeTime date={new Date(link.createdAt)} now={Date.now()} />
                </td>
                <td>{link.startAtMs === null ? 'the start' : formatOffset(link.startAtMs)}</td>
                <td>{link.expiresAt.slice(0, 10)}</td>
                <td>{link.state}</td>
                <td>
                  {link.state === 'active' ? (
                    <button
                      className="btn btn-small btn-danger"
                      type="button"
                      disabled={pending}
                      onClick={() =>
                        start(async () => {
                          if (
                            !window.confirm(
                              'Revoke this link? Anyone who has it can no longer watch the replay.',
                            )
                          )
                            return
                          const result = await revokeShareLinkAction(link.id)
                          setRevoked(result.ok ? result.message : result.error)
                        })
                      }
                    >
                      Revoke
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
