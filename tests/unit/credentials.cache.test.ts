import { describe, expect, it } from 'vitest'
import { cachedCredential, forgetCredentials } from '@/lib/credentials/credential-cache'

describe('credential cache', () => {
  it('keeps a resolved credential and asks again after forgetCredentials', async () => {
    let lookups = 0
    const resolve = async () => {
      lookups += 1
      return { id: 'k1' }
    }
    expect(await cachedCredential('test:hit', resolve)).toEqual({ id: 'k1' })
    expect(await cachedCredential('test:hit', resolve)).toEqual({ id: 'k1' })
    expect(lookups).toBe(1)
    forgetCredentials()
    await cachedCredential('test:hit', resolve)
    expect(lookups).toBe(2)
  })

  it('never keeps a credential that did not resolve', async () => {
    let lookups = 0
    const resolve = async () => {
      lookups += 1
      return null
    }
    expect(await cachedCredential('test:miss', resolve)).toBeNull()
    expect(await cachedCredential('test:miss', resolve)).toBeNull()
    expect(lookups).toBe(2)
  })

  it('does not keep what a lookup read before a revocation that finished during it', async () => {
    let release: () => void = () => undefined
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let lookups = 0
    const slow = async () => {
      lookups += 1
      await gate
      return { id: 'revoked-meanwhile' }
    }
    const pending = cachedCredential('test:race', slow)
    forgetCredentials()
    release()
    expect(await pending).toEqual({ id: 'revoked-meanwhile' })
    await cachedCredential('test:race', async () => {
      lookups += 1
      return null
    })
    expect(lookups).toBe(2)
  })
})
