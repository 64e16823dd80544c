'use client'

import { signOut } from 'next-auth/react'
import { useState } from 'react'

export function SignOutButton() {
  const [pending, setPending] = useState(false)
  return (
    <button
      className="btn"
      type="button"
      disabled={pending}
      onClick={() => {
        setPending(true)
        void signOut({ callbackUrl: '/login?signedOut=1' })
      }}
    >
      Sign out
    </button>
  )
}
