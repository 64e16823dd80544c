import type { Metadata } from 'next'
import type { ReactNode } from 'react'
import './globals.css'

export const metadata: Metadata = {
  title: { default: 'Session Replay Issues', template: '%s · Session Replay Issues' },
  description: 'What broke for your users, from their session replays.',
}

// Every page reads the database or the session: nothing is prerendered at build time.
export const dynamic = 'force-dynamic'

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  )
}
