'use client'

import { signOut } from 'next-auth/react'
import { useState } from 'react'

/** Signs out and comes back to the invitation, to sign in or sign up as the invited address. */
export function SwitchAccountButton({ returnTo }: { returnTo: string }) {
  const [pending, setPending] = useState(false)
  return (
    <button
      className="btn"
      type="button"
      disabled={pending}
      onClick={() => {
        setPending(true)
        void signOut({ callbackUrl: returnTo })
      }}
    >
      {pending ? 'Signing out…' : 'Sign out and continue'}
    </button>
  )
}
