import type { MemberContext } from '@/lib/http/session'

// Scaffold: the helper who owns this section replaces this file.
export async function ErasureSection(_props: { member: MemberContext }) {
  return null
}
