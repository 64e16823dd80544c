import type { Metadata } from 'next'
import { requireMember } from '@/lib/http/session'
import { ErasureSection } from './erasure-section'
import { ExportSection } from './export-section'
import { RetentionSection } from './retention-section'

export const metadata: Metadata = { title: 'Privacy' }

/**
 * End users' data under the organization's control (docs/privacy.md): erasing one person,
 * handing a person their data, and how long recordings are kept.
 */
export default async function PrivacyPage() {
  const member = await requireMember('/settings/privacy')
  return (
    <>
      <section>
        <h1>Privacy</h1>
        <p className="muted">
          What this organization keeps about the people your site records, and how to erase, export or stop
          keeping it. The manual's privacy page (docs/privacy.md) says what each action covers.
        </p>
      </section>
      <ErasureSection member={member} />
      <ExportSection member={member} />
      <RetentionSection member={member} />
    </>
  )
}
