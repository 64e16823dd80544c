import { createHmac, timingSafeEqual } from 'node:crypto'
import { deriveKey } from '@/lib/crypto/keys'
import { InvalidInputError } from '@/lib/errors'

/** Where a keyset page ends: the last row's sort key. */
export interface KeysetPosition {
  createdAt: Date
  id: string
}

export const INVALID_CURSOR = 'cursor is invalid: pass the nextCursor of the previous page unchanged'

const MAC_BYTES = 16
/** The longest cursor of a uuid position; a text position (`cursorLengthFor`) may be longer. */
const MAX_CURSOR_LENGTH = 512

/**
 * The longest cursor whose position `id` is text of up to `maxIdChars` characters (a release
 * name, a file address): JSON writes a character as at most six bytes (`\u001f`).
 */
export function cursorLengthFor(maxIdChars: number): number {
  return Math.max(MAX_CURSOR_LENGTH, Math.ceil((6 * maxIdChars + 32) / 3) * 4 + 32)
}

function mac(payload: string, key: Buffer): Buffer {
  return createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES)
}

/**
 * An opaque, signed cursor. It is bound to its list (`scope`: organization, endpoint and
 * filter), so a cursor of another organization or another filter is refused, and a client
 * can neither build nor alter one. Rotating AUTH_SECRET invalidates outstanding cursors.
 */
export function encodeCursor(position: KeysetPosition, scope: string, key = deriveKey('cursor-v1')): string {
  const payload = Buffer.from(JSON.stringify([position.createdAt.getTime(), position.id])).toString(
    'base64url',
  )
  return `${payload}.${mac(`${scope}\n${payload}`, key).toString('base64url')}`
}

export function decodeCursor(
  cursor: string,
  scope: string,
  key = deriveKey('cursor-v1'),
  maxLength = MAX_CURSOR_LENGTH,
): KeysetPosition {
  // Bounded before it is split or hashed.
  if (cursor.length > maxLength) throw new InvalidInputError(INVALID_CURSOR)
  const [payload, signature, extra] = cursor.split('.')
  if (!payload || !signature || extra !== undefined) throw new InvalidInputError(INVALID_CURSOR)
  const given = Buffer.from(signature, 'base64url')
  const expected = mac(`${scope}\n${payload}`, key)
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new InvalidInputError(INVALID_CURSOR)
  try {
    const [time, id] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as [unknown, unknown]
    if (typeof time !== 'number' || typeof id !== 'string') throw new Error('shape')
    return { createdAt: new Date(time), id }
  } catch {
    throw new InvalidInputError(INVALID_CURSOR)
  }
}
