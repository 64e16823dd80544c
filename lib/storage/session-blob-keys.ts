import { createHash } from 'node:crypto'

const sha256 = (value: string | Uint8Array) => createHash('sha256').update(value).digest('hex')

/**
 * Where a batch's bytes live. The recorder's session id may hold any characters, so the
 * folder is a hash of it; the file name carries the sequence (sorted listing = replay order)
 * and a hash of the content, so a conflicting re-send of one sequence never overwrites the
 * batch that was accepted first, and two tabs' batches of one sequence (the body names its
 * `session.windowId`) never share a file.
 */
export function batchBlobKey(
  organizationId: string,
  externalSessionId: string,
  sequence: number,
  body: Uint8Array,
) {
  return `${sessionBlobFolder(organizationId, externalSessionId)}${String(sequence).padStart(10, '0')}-${sha256(body).slice(0, 16)}.json`
}

/** The folder holding every batch of one session, including any a failed insert left behind. */
export function sessionBlobFolder(organizationId: string, externalSessionId: string): string {
  return `orgs/${organizationId}/sessions/${sha256(`${organizationId}\n${externalSessionId}`).slice(0, 32)}/`
}
