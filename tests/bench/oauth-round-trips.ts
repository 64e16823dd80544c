import { Socket } from 'node:net'
import type { DatabaseHandle } from '@/db/client'
import { tokenRequest } from '@/lib/oauth/token-request'
import { logStatements } from '../helpers/statement-count'
import { seedOAuth } from './oauth-seed'

const SAMPLES = 20

export interface RoundTrips {
  /** Statements per refresh grant, BEGIN and COMMIT included (the mean over the samples). */
  perRefresh: number
  /** One refresh's statements, first words only: what the figure is made of. */
  example: string[]
  /**
   * Postgres only: writes to the database's socket per refresh grant, i.e. network round trips
   * (statements sent together travel in one write); null on PGlite.
   */
  writesPerRefresh: number | null
  /** Refresh tokens these samples rotated in the database (the integrity check adds them). */
  rotations: number
}

/**
 * Round trips of our refresh grant on this database, counted in this process with the
 * driver hook the tests use (tests/helpers/statement-count.ts): the same code the server
 * runs, on chains seeded apart from the load's. The first refresh of a client also records
 * its use once a minute (touchGrantUse, after the answer); it is left out as warm-up.
 */
export async function measureRoundTrips(handle: DatabaseHandle, resource: string): Promise<RoundTrips> {
  const seeded = await seedOAuth(handle.db, { chains: SAMPLES + 1, users: 1, resource })
  const config = {
    baseUrl: 'http://127.0.0.1',
    oauth: { accessTokenTtlSeconds: 3600, refreshTokenTtlDays: 30, refreshReuseGraceSeconds: 0 },
  }
  const refresh = (token: string, clientId: string) =>
    tokenRequest(
      handle.db,
      new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: clientId }),
      { clientId },
      config,
    )
  const [warm, ...samples] = seeded.refreshTokens
  await refresh(warm!.token, warm!.clientId)
  await new Promise((resolve) => setTimeout(resolve, 200))
  const log = logStatements(handle)
  // Every socket write of this process while the samples run goes to the database: nothing
  // else talks to the network meanwhile.
  const write = Socket.prototype.write
  let writes = 0
  if (handle.kind === 'postgres')
    Socket.prototype.write = function counted(this: Socket, ...args: Parameters<Socket['write']>) {
      writes++
      return write.apply(this, args)
    } as Socket['write']
  try {
    let total = 0
    let example: string[] = []
    for (const sample of samples) {
      log.reset()
      await refresh(sample.token, sample.clientId)
      total += log.statements.length
      example = log.statements.map((s) => s.split(' ').slice(0, 4).join(' '))
    }
    return {
      perRefresh: total / samples.length,
      example,
      writesPerRefresh: handle.kind === 'postgres' ? writes / samples.length : null,
      rotations: seeded.refreshTokens.length,
    }
  } finally {
    Socket.prototype.write = write
    log.stop()
  }
}
