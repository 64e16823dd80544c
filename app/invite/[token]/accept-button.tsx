'use client'

import { useRouter } from 'next/navigation'
import { useState, useTransition } from 'react'
import { FormError } from '@/app/_components/form'
import { acceptInvitationAction } from './actions'

export function AcceptButton({ token, organizationName }: { token: string; organizationName: string }) {
  const router = useRouter()
  const [pending, start] = useTransition()
  const [error, setError] = useState<string | null>(null)
  return (
    <>
      <FormError message={error} />
      <button
        className="btn btn-primary"
        type="button"
        disabled={pending}
        onClick={() =>
          start(async () => {
            const result = await acceptInvitationAction(token)
            if (!result.ok) {
              setError(result.error)
              return
            }
            router.replace('/')
            router.refresh()
          })
        }
      >
        {pending ? 'Joining…' : `Accept invitation to ${organizationName}`}
      </button>
    </>
  )
}
