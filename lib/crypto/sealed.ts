import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

/**
 * AES-256-GCM with a random 96-bit IV per message and the 128-bit tag kept with it: what the
 * service uses wherever it must get a secret or recorded bytes back (webhook and integration
 * secrets, privacy requests' person identifiers, session data keys and sealed batches).
 */
const TEXT_FORMAT = 'v1'
const IV_BYTES = 12
const TAG_BYTES = 16

/** `v1.<iv>.<tag>.<ciphertext>` (base64url): short secrets and identifiers kept in a text column. */
export function sealText(plaintext: string | Uint8Array, key: Uint8Array): string {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()])
  const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'))
  return [TEXT_FORMAT, ...parts].join('.')
}

export function openTextBytes(sealed: string, key: Uint8Array): Buffer {
  const [format, iv, tag, ciphertext] = sealed.split('.')
  if (format !== TEXT_FORMAT || !iv || !tag || ciphertext === undefined)
    throw new Error('unrecognised sealed text')
  // The tag length is fixed: a shortened tag must not verify.
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
    authTagLength: TAG_BYTES,
  })
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()])
}

export function openText(sealed: string, key: Uint8Array): string {
  return openTextBytes(sealed, key).toString('utf8')
}

/**
 * Binary form for blobs: MAGIC, the IV, the ciphertext, the tag. The magic cannot begin a JSON
 * document, so a reader tells a sealed blob from one stored before sealing existed.
 */
const MAGIC = Buffer.from('SRB1', 'ascii')

export function isSealedBytes(bytes: Uint8Array): boolean {
  return (
    bytes.byteLength >= MAGIC.length + IV_BYTES + TAG_BYTES &&
    Buffer.from(bytes.buffer, bytes.byteOffset, MAGIC.length).equals(MAGIC)
  )
}

export function sealBytes(plaintext: Uint8Array, key: Uint8Array): Uint8Array {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  return Buffer.concat([MAGIC, iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()])
}

/** Throws when the key is wrong or a byte was changed (the tag does not verify). */
export function openBytes(sealed: Uint8Array, key: Uint8Array): Uint8Array {
  if (!isSealedBytes(sealed)) throw new Error('not a sealed blob')
  const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength)
  const iv = bytes.subarray(MAGIC.length, MAGIC.length + IV_BYTES)
  const tag = bytes.subarray(bytes.length - TAG_BYTES)
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES })
  decipher.setAuthTag(tag)
  return Buffer.concat([
    decipher.update(bytes.subarray(MAGIC.length + IV_BYTES, bytes.length - TAG_BYTES)),
    decipher.final(),
  ])
}
