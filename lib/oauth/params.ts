import { InvalidRequestError } from './errors'

/**
 * Reads one request parameter. RFC 6749 §3.1 and §3.2: parameters must not repeat, and one
 * sent without a value counts as omitted.
 */
export function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name)
  if (values.length > 1) throw new InvalidRequestError(`The ${name} parameter must not be repeated`)
  return values[0] === '' ? undefined : values[0]
}

export function required(params: URLSearchParams, name: string): string {
  const value = single(params, name)
  if (value === undefined) throw new InvalidRequestError(`The ${name} parameter is required`)
  return value
}
