/**
 * Polls `check` until it returns a truthy value (which is returned) or the time is up. For
 * outcomes that background work produces after the call under test has returned.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 20_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

/**
 * Reads `read` until `done` holds for its value (which is returned) or the time is up; the
 * error names the last value read, so a browser test says what it saw instead of only that it
 * waited.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let value = await read()
  while (!done(value)) {
    if (Date.now() > deadline)
      throw new Error(`timed out; last value: ${JSON.stringify(value)?.slice(0, 2000)}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
    value = await read()
  }
  return value
}
