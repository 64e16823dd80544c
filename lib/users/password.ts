import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'

/**
 * Passwords are hashed with scrypt from Node's crypto, stored as `scrypt$N$r$p$salt$hash` so
 * parameters can be raised later without invalidating existing hashes. N=2^15, r=8, p=3 is
 * one of OWASP's equivalent settings; it needs 32 MiB per hash instead of the 128 MiB of
 * N=2^17, p=1, so concurrent sign-ins cannot exhaust the server's memory.
 */
const N = 2 ** 15
const R = 8
const P = 3
const KEY_LENGTH = 32
// scrypt needs 128 * N * r bytes (32 MiB here); Node's default cap is exactly 32 MiB.
const MAX_MEMORY = 64 * 1024 * 1024

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    )
  })
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, { N, r: R, p: P, maxmem: MAX_MEMORY })
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64url')
  const actual = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAX_MEMORY,
  })
  return expected.length === actual.length && timingSafeEqual(expected, actual)
}

/** A hash of nothing, verified against when the e-mail is unknown so timing reveals nothing. */
let dummyHash: Promise<string> | undefined
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'))
  return dummyHash
}

export const PASSWORD_MIN_LENGTH = 10
export const PASSWORD_MAX_LENGTH = 200
