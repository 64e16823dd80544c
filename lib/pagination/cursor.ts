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

export function decodeCursor(cursor: string, scope: string, key = deriveKey('cursor-v1')): KeysetPosition {
  const [payload, signature, extra] = cursor.split('.')
  if (!payload || !signature || extra !== undefined || cursor.length > 512)
    throw new InvalidInputError(INVALID_CURSOR)
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
