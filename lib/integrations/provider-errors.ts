import { InvalidInputError, ProviderError } from '@/lib/errors'
import { PROVIDER_TIMEOUT_MS } from './limits'
import type { ProviderFailure } from './provider-call'

export type TrackerName = 'Linear' | 'GitHub'

/** "10 seconds", "0.3 seconds": the limit the call actually ran with. */
function duration(ms: number): string {
  const seconds = ms / 1000
  return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`
}

function timedOut(provider: TrackerName, failure: ProviderFailure): string {
  return `${provider} did not answer within ${duration(failure.timeoutMs ?? PROVIDER_TIMEOUT_MS)}.`
}

function limited(provider: TrackerName, failure: ProviderFailure): string {
  return failure.retryAfterSeconds !== null
    ? `${provider} is limiting requests. Try again in ${failure.retryAfterSeconds} seconds.`
    : `${provider} is limiting requests. Try again in a minute.`
}

const isServerError = (failure: ProviderFailure) => failure.status !== null && failure.status >= 500

/**
 * A failure while connecting an integration (two reads, nothing created): the owner is at the
 * form, so a refused credential, repository or team is theirs to fix (400); an unavailable
 * provider is a 502.
 */
export function connectError(provider: TrackerName, failure: ProviderFailure, notFound: string): Error {
  if (failure.label === 'timeout')
    return new ProviderError(`${timedOut(provider, failure)} Try again in a few minutes.`)
  if (failure.label === 'network_error')
    return new ProviderError(`Could not reach ${provider}. Try again in a few minutes.`)
  if (failure.status === 429) return new ProviderError(limited(provider, failure))
  if (isServerError(failure))
    return new ProviderError(
      `${provider} answered with an error (HTTP ${failure.status}) twice. Try again in a few minutes.`,
    )
  if (failure.status === 401)
    return new InvalidInputError(
      provider === 'Linear' ? 'Linear rejected the API key.' : 'GitHub rejected the token.',
    )
  if (failure.status === 403 || failure.status === 404) return new InvalidInputError(notFound)
  if (failure.label === 'provider_refused' || failure.status === 400 || failure.status === 422)
    return new InvalidInputError(
      provider === 'Linear'
        ? 'Linear refused the request as invalid. Check the API key and the team key or id.'
        : 'GitHub refused the request as invalid. Check the token and the owner/repo.',
    )
  return new ProviderError(`${provider} refused the request (HTTP ${failure.status}).`)
}

/**
 * A failure while creating a ticket: always the provider's side (502), with what to do. When the
 * provider may have acted (no answer in time, no answer at all, a 5xx) the message says the
 * ticket may exist, so nobody files a second one blindly; otherwise it was not created.
 */
export function ticketError(provider: TrackerName, failure: ProviderFailure): ProviderError {
  const maybe = `The ${provider} issue may have been created; check ${provider} before trying again.`
  if (failure.label === 'timeout') return new ProviderError(`${timedOut(provider, failure)} ${maybe}`)
  if (failure.label === 'network_error')
    return new ProviderError(`The connection to ${provider} failed. ${maybe}`)
  if (isServerError(failure))
    return new ProviderError(`${provider} answered with an error (HTTP ${failure.status}). ${maybe}`)
  const notCreated = `The ${provider} issue was not created.`
  if (failure.status === 429) return new ProviderError(`${notCreated} ${limited(provider, failure)}`)
  if (failure.status === 401)
    return new ProviderError(
      `${notCreated} ${provider} rejected the credentials. An organization owner reconnects ${provider} under Settings → Integrations.`,
    )
  if (failure.status === 403 || failure.status === 404)
    return new ProviderError(
      `${notCreated} ${provider} refused access (HTTP ${failure.status}). Check the integration's permissions under Settings → Integrations.`,
    )
  if (failure.label === 'provider_refused')
    return new ProviderError(
      `${notCreated} ${provider} refused to create it. Check the integration's settings under Settings → Integrations.`,
    )
  return new ProviderError(`${notCreated} ${provider} refused to create it (HTTP ${failure.status}).`)
}
