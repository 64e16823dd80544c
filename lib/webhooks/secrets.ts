import { randomBytes } from 'node:crypto'
import { displayPrefix, TOKEN_PREFIXES } from '@/lib/credentials/tokens'
import { deriveKey } from '@/lib/crypto/keys'
import { openText, sealText } from '@/lib/crypto/sealed'

/**
 * Signing secrets must be recoverable to sign every attempt, so they are encrypted, not
 * hashed: sealed (lib/crypto/sealed.ts) under a key derived from AUTH_SECRET.
 */

/** `whsec_` + base64 of 32 random bytes: also a valid Standard Webhooks secret. */
export function generateWebhookSecret(): string {
  return `${TOKEN_PREFIXES.webhookSecret}${randomBytes(32).toString('base64')}`
}

export function secretPrefix(secret: string): string {
  return displayPrefix(secret, TOKEN_PREFIXES.webhookSecret)
}

export function encryptSecret(secret: string, key = deriveKey('webhook-secret-v1')): string {
  return sealText(secret, key)
}

export function decryptSecret(stored: string, key = deriveKey('webhook-secret-v1')): string {
  return openText(stored, key)
}
