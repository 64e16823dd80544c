import { deriveKey } from '@/lib/crypto/keys'
import { decryptSecret, encryptSecret } from '@/lib/webhooks/secrets'

/**
 * An integration's secret (a Slack webhook URL, a Linear API key, a GitHub token) must be
 * recoverable to call the provider, so it is encrypted like webhook signing secrets, under a
 * key of its own purpose.
 */
export function encryptIntegrationSecret(secret: string): string {
  return encryptSecret(secret, deriveKey('integration-secret-v1'))
}

export function decryptIntegrationSecret(stored: string): string {
  return decryptSecret(stored, deriveKey('integration-secret-v1'))
}

/** The last four characters, for recognising a secret in a list; never enough to use it. */
export function secretHint(secret: string): string {
  return secret.length > 12 ? `…${secret.slice(-4)}` : '…'
}
