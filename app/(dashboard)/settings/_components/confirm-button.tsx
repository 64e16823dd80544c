'use client'

import { useRouter } from 'next/navigation'
import { useState, useTransition } from 'react'
import type { ActionResult } from '@/lib/http/actions'

/**
 * A button that asks before it runs a server action (revoke, remove, change role) and shows
 * the action's answer next to it. `navigateTo` leaves the page afterwards (leaving an organization).
 */
export function ConfirmButton({
  action,
  confirm,
  label,
  pendingLabel,
  accessibleLabel,
  danger = false,
  navigateTo,
}: {
  action: () => Promise<ActionResult>
  confirm: string
  label: string
  pendingLabel: string
  accessibleLabel?: string
  danger?: boolean
  navigateTo?: string
}) {
  const router = useRouter()
  const [pending, start] = useTransition()
  const [result, setResult] = useState<ActionResult | null>(null)
  return (
    <span className="toolbar">
      <button
        className={`btn btn-small${danger ? ' btn-danger' : ''}`}
        type="button"
        disabled={pending}
        aria-label={accessibleLabel}
        onClick={() => {
          if (!window.confirm(confirm)) return
          start(async () => {
            const outcome = await action()
            setResult(outcome)
            if (outcome.ok && navigateTo) {
              router.replace(navigateTo)
              router.refresh()
            }
          })
        }}
      >
        {pending ? pendingLabel : label}
      </button>
      {result && !result.ok ? (
        <span className="muted" role="alert">
          {result.error}
        </span>
      ) : null}
    </span>
  )
}
