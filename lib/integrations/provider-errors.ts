import { InvalidInputError, ProviderError } from '@/lib/errors'
import { PROVIDER_TIMEOUT_MS } from './limits'
import type { ProviderFailure } from './provider-call'

export type TrackerName = 'Linear' | 'GitHub'

/** The part of a message every failure shares: when the provider never answered, or failed. */
function unavailable(provider: TrackerName, failure: ProviderFailure): string | null {
  if (failure.label === 'timeout')
    return `${provider} did not answer within ${PROVIDER_TIMEOUT_MS / 1000} seconds. Try again in a few minutes.`
  if (failure.label === 'network_error') return `Could not reach ${provider}. Try again in a few minutes.`
  if (failure.status === 429)
    return failure.retryAfterSeconds !== null
      ? `${provider} is limiting requests. Try again in ${failure.retryAfterSeconds} seconds.`
      : `${provider} is limiting requests. Try again in a minute.`
  if (failure.status !== null && failure.status >= 500)
    return `${provider} answered with an error (HTTP ${failure.status}) twice. Try again in a few minutes.`
  return null
}

/**
 * A failure while connecting an integration: the owner is at the form, so a refused credential
 * or repository is theirs to fix (400); an unavailable provider is a 502.
 */
export function connectError(provider: TrackerName, failure: ProviderFailure, notFound: string): Error {
  const down = unavailable(provider, failure)
  if (down) return new ProviderError(down)
  if (failure.status === 401)
    return new InvalidInputError(
      provider === 'Linear' ? 'Linear rejected the API key.' : 'GitHub rejected the token.',
    )
  if (failure.status === 403 || failure.status === 404) return new InvalidInputError(notFound)
  return new ProviderError(`${provider} refused the request (HTTP ${failure.status}).`)
}

/** A failure while creating a ticket: always the provider's side (502), with what to do. */
export function ticketError(provider: TrackerName, failure: ProviderFailure): ProviderError {
  const down = unavailable(provider, failure)
  if (down) return new ProviderError(`The ${provider} issue was not created. ${down}`)
  if (failure.status === 401)
    return new ProviderError(
      `${provider} rejected the credentials. An organization owner reconnects ${provider} under Settings → Integrations.`,
    )
  if (failure.status === 403 || failure.status === 404)
    return new ProviderError(
      `${provider} refused access (HTTP ${failure.status}). Check the integration's permissions under Settings → Integrations.`,
    )
  return new ProviderError(`${provider} refused to create the issue (HTTP ${failure.status}).`)
}
