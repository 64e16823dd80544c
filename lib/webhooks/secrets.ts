import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { displayPrefix, TOKEN_PREFIXES } from '@/lib/credentials/tokens'
import { deriveKey } from '@/lib/crypto/keys'

/**
 * Signing secrets must be recoverable to sign every attempt, so they are encrypted, not
 * hashed: AES-256-GCM with a key derived from AUTH_SECRET, a random 96-bit IV per secret and
 * the 128-bit tag stored with it (`v1.<iv>.<tag>.<ciphertext>`, base64url).
 */
const FORMAT = 'v1'

/** `whsec_` + base64 of 32 random bytes: also a valid Standard Webhooks secret. */
export function generateWebhookSecret(): string {
  return `${TOKEN_PREFIXES.webhookSecret}${randomBytes(32).toString('base64')}`
}

export function secretPrefix(secret: string): string {
  return displayPrefix(secret, TOKEN_PREFIXES.webhookSecret)
}

export function encryptSecret(secret: string, key = deriveKey('webhook-secret-v1')): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
  const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'))
  return [FORMAT, ...parts].join('.')
}

export function decryptSecret(stored: string, key = deriveKey('webhook-secret-v1')): string {
  const [format, iv, tag, ciphertext] = stored.split('.')
  if (format !== FORMAT || !iv || !tag || ciphertext === undefined)
    throw new Error('unrecognised webhook secret ciphertext')
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
    'utf8',
  )
}
