/**
 * Symbolication for the processing step (docs/source-maps.md, "Symbolication"): finds the
 * maps a session's frames need (the session's organization only), reads them
 * from storage, and has an analysis worker parse them and resolve the frames. This thread
 * does I/O only: a multi-megabyte map is never parsed where requests are answered. It sends
 * work to the pool, so it lives with the orchestration, not in lib/symbolication, which the
 * worker runs.
 */
import { and, desc, eq, inArray, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { sourcemapFiles } from '@/db/schema'
import {
  frameKey,
  type MinifiedFrame,
  type SymbolicatedFrame,
  type Symbolication,
} from '@/lib/analysis/frames'
import { cutQuery } from '@/lib/analysis/stack'
import { AnalysisFailed, AnalysisStopped, MapStopped } from '@/lib/analysis-worker/pool'
import { getSessionAnalysis, type SessionAnalysis } from '@/lib/analysis-worker/session-analysis'
import { logger } from '@/lib/log'
import { readCapped } from '@/lib/storage/read-capped'
import type { BlobStore } from '@/lib/storage/types'
import { admitsMap, mapHeapBudgetBytes, storedHeapEstimate } from '@/lib/symbolication/heap-estimate'
import { frameAddresses } from '@/lib/symbolication/map-address'
import { MAX_MAP_BYTES } from '@/lib/symbolication/parse-map'
import type { FrameLookup } from '@/lib/symbolication/symbolicate-frames'

/** What the processing step asks symbolication for, for one session. */
export interface SymbolicateRequest {
  organizationId: string
  release: string
  /** The session's script URL → debug ID pairs (`replay_sessions.debug_ids`), when the recorder found any. */
  debugIds: Record<string, string> | null
  /** Distinct positions, as analysis reported them in `errorFrames`. */
  frames: MinifiedFrame[]
  /**
   * Stacks the frames came from, top first (`errorStacks`): with them, a frame is named by its
   * caller's call site, which names the original function more often than the frame itself.
   */
  stacks?: MinifiedFrame[][]
}

/** Resolves every frame it can; never throws for a missing, broken or hostile map. */
export type SymbolicateFrames = (request: SymbolicateRequest) => Promise<Symbolication>

/** Distinct frames resolved per session; later ones are `failed` without a lookup. */
export const MAX_SESSION_FRAMES = 500
/** Maps read per session, in the order their frames come; frames of later maps are `failed`. */
export const MAX_SESSION_MAPS = 20
/** Map JSON read per session, in total: what this thread holds before it hands the bytes over. */
export const MAX_SESSION_MAP_BYTES = 96 * 1024 * 1024
/** Callers looked at per frame for its name (the call sites of different stacks). */
const MAX_CALLERS = 4
/**
 * Calls to the worker per session: the first, and one more without the map it was stopped on;
 * besides, each map it was stopped on is tried once alone in a fresh worker before it is
 * blamed. Each call may take the whole budget, so a session costs at most four budgets.
 */
const MAX_ATTEMPTS = 2

export interface SymbolicatorDeps {
  db: DbOrTx
  blobs: BlobStore
  /** The worker pool and budget; the process-wide pool and the configured budget by default. */
  analysis?: SessionAnalysis
}

interface MapRow {
  release: string
  url: string
  debugId: string | null
  blobKey: string
  sizeBytes: number
  heapEstimateBytes: number | null
  uploadedAt: Date
}

/** A debug ID as bundlers write them: a UUID, taken in lower case; anything else is ignored. */
function debugIdOf(value: unknown): string | null {
  if (typeof value !== 'string' || value.length !== 36) return null
  const id = value.toLowerCase()
  for (let i = 0; i < 36; i++) {
    const code = id.charCodeAt(i)
    const dash = i === 8 || i === 13 || i === 18 || i === 23
    if (dash ? code !== 45 : !((code >= 48 && code <= 57) || (code >= 97 && code <= 102))) return null
  }
  return id
}

function isPosition(frame: MinifiedFrame): boolean {
  return (
    typeof frame.url === 'string' &&
    frame.url.length > 0 &&
    Number.isSafeInteger(frame.line) &&
    Number.isSafeInteger(frame.column)
  )
}

/** The debug ID the session's recorder saw for a script, by its URL as written or without its query. */
function debugIdFor(debugIds: Record<string, string> | null, url: string): string | null {
  if (!debugIds) return null
  const own = Object.hasOwn(debugIds, url) ? debugIds[url] : undefined
  const cut = cutQuery(url)
  return debugIdOf(own ?? (Object.hasOwn(debugIds, cut) ? debugIds[cut] : undefined))
}

/**
 * The row of the map for a script. A debug ID names the exact file, so its row wins over an
 * address, and may come from another release of the same organization (the same bundle
 * uploaded under another release name); among several, the session's release, then the
 * newest upload. Otherwise the session's release under the script's full URL, then `~/path`.
 */
function rowFor(rows: MapRow[], release: string, url: string, debugId: string | null): MapRow | null {
  if (debugId) {
    let best: MapRow | null = null
    for (const row of rows) {
      if (row.debugId !== debugId) continue
      if (!best) best = row
      else if ((row.release === release) !== (best.release === release)) {
        if (row.release === release) best = row
      } else if (row.uploadedAt > best.uploadedAt) best = row
    }
    if (best) return best
  }
  for (const address of frameAddresses(url)) {
    const row = rows.find((candidate) => candidate.release === release && candidate.url === address)
    if (row) return row
  }
  return null
}

function failed(frame: MinifiedFrame): SymbolicatedFrame {
  return { minified: frame, original: null, status: 'failed' }
}

/**
 * The SymbolicateFrames the processing step calls (docs/source-maps.md, "Symbolication").
 * Never throws for a missing, broken or hostile map, nor for a worker stopped over its budget
 * (those frames are `failed`); a database or storage error is thrown, so that the step is
 * retried.
 */
export function createSymbolicator(deps: SymbolicatorDeps): SymbolicateFrames {
  return (request) => symbolicateSession(deps, request)
}

export async function symbolicateSession(
  deps: SymbolicatorDeps,
  request: SymbolicateRequest,
): Promise<Symbolication> {
  const { release, organizationId } = request
  const out: Record<string, SymbolicatedFrame> = {}
  const wanted: MinifiedFrame[] = []
  for (const frame of request.frames) {
    if (!isPosition(frame)) continue
    const key = frameKey(frame)
    if (Object.hasOwn(out, key)) continue
    if (wanted.length >= MAX_SESSION_FRAMES) out[key] = failed(frame)
    else {
      wanted.push(frame)
      // Replaced below with what the lookup finds.
      out[key] = { minified: frame, original: null, status: 'no_map' }
    }
  }
  if (wanted.length === 0) return { release, frames: out }

  // Each frame's callers, over every stack it is in.
  const callers = new Map<string, MinifiedFrame[]>()
  for (const stack of request.stacks ?? []) {
    for (let i = 0; i + 1 < stack.length; i++) {
      const key = frameKey(stack[i]!)
      const caller = stack[i + 1]!
      if (!Object.hasOwn(out, key) || !isPosition(caller)) continue
      const list = callers.get(key) ?? []
      if (list.length < MAX_CALLERS && !list.some((known) => frameKey(known) === frameKey(caller)))
        list.push(caller)
      callers.set(key, list)
    }
  }

  const urls = new Set<string>()
  for (const frame of wanted) urls.add(frame.url)
  for (const list of callers.values()) for (const caller of list) urls.add(caller.url)
  const addresses = new Set<string>()
  const debugIds = new Set<string>()
  for (const url of urls) {
    for (const address of frameAddresses(url)) addresses.add(address)
    const id = debugIdFor(request.debugIds, url)
    if (id) debugIds.add(id)
  }
  const columns = {
    release: sourcemapFiles.release,
    url: sourcemapFiles.url,
    debugId: sourcemapFiles.debugId,
    blobKey: sourcemapFiles.blobKey,
    sizeBytes: sourcemapFiles.sizeBytes,
    heapEstimateBytes: sourcemapFiles.heapEstimateBytes,
    uploadedAt: sourcemapFiles.uploadedAt,
  }
  // Two queries, each bounded by what it looks for: one address is one row of the release, and
  // a debug ID gives only the row rowFor would take. Many uploads of one debug ID (a bundle
  // under many release names) cannot crowd the address rows out.
  const rows: MapRow[] = await deps.db
    .select(columns)
    .from(sourcemapFiles)
    .where(
      and(
        eq(sourcemapFiles.organizationId, organizationId),
        eq(sourcemapFiles.release, release),
        inArray(sourcemapFiles.url, [...addresses]),
      ),
    )
    .limit(addresses.size)
  if (debugIds.size > 0)
    rows.push(
      ...(await deps.db
        .selectDistinctOn([sourcemapFiles.debugId], columns)
        .from(sourcemapFiles)
        .where(
          and(
            eq(sourcemapFiles.organizationId, organizationId),
            inArray(sourcemapFiles.debugId, [...debugIds]),
          ),
        )
        .orderBy(
          sourcemapFiles.debugId,
          desc(sql`${sourcemapFiles.release} = ${release}`),
          desc(sourcemapFiles.uploadedAt),
        )
        .limit(debugIds.size)),
    )

  // The map of each script, the first MAX_SESSION_MAPS in the order the frames need them.
  const mapOfUrl = new Map<string, MapRow | null>()
  const rowOf = (url: string) => {
    if (!mapOfUrl.has(url)) mapOfUrl.set(url, rowFor(rows, release, url, debugIdFor(request.debugIds, url)))
    return mapOfUrl.get(url) ?? null
  }
  const analysis = deps.analysis ?? getSessionAnalysis()
  const admitted = new Map<string, MapRow>()
  const overBudget = new Set<string>()
  const admit = (row: MapRow): boolean => {
    if (admitted.has(row.blobKey)) return true
    // A map a worker was stopped on lately would stop the next one too: not sent again.
    if (analysis.pool.stoppedOn(row.blobKey)) return false
    if (admitted.size >= MAX_SESSION_MAPS || row.sizeBytes > MAX_MAP_BYTES) return false
    // A map that would take more heap than a worker gives one map is never read: it would
    // stop the worker whatever else it held. It is not remembered as stopped (nothing ran).
    if (!admitsMap(row, analysis.budget.memoryMb)) {
      if (!overBudget.has(row.blobKey))
        logger.warn(
          {
            organizationId,
            release,
            url: row.url,
            heapEstimateBytes: storedHeapEstimate(row),
            budgetBytes: mapHeapBudgetBytes(analysis.budget.memoryMb),
          },
          'source map over the worker heap budget, not read',
        )
      overBudget.add(row.blobKey)
      return false
    }
    admitted.set(row.blobKey, row)
    return true
  }
  const lookups: FrameLookup[] = []
  for (const frame of wanted) {
    const row = rowOf(frame.url)
    if (!row) continue
    if (!admit(row)) {
      out[frameKey(frame)] = failed(frame)
      continue
    }
    const known = (callers.get(frameKey(frame)) ?? []).flatMap((caller) => {
      const callerRow = rowOf(caller.url)
      return callerRow && admit(callerRow) ? [{ frame: caller, mapKey: callerRow.blobKey }] : []
    })
    lookups.push({ frame, mapKey: row.blobKey, callers: known })
  }
  if (lookups.length === 0) return { release, frames: out }

  let total = 0
  // One at a time, when the worker asks: what this thread holds is one map, and what it reads
  // in all is bounded by MAX_SESSION_MAP_BYTES.
  const readMap = async (blobKey: string): Promise<Uint8Array | null> => {
    const row = admitted.get(blobKey)
    const max = Math.min(row?.sizeBytes ?? 0, MAX_MAP_BYTES, MAX_SESSION_MAP_BYTES - total)
    const stream = row && max > 0 ? await deps.blobs.stream(blobKey) : null
    const bytes = stream ? await readCapped(stream, max) : null
    total += bytes?.byteLength ?? 0
    return bytes
  }
  const run = (attempt: FrameLookup[], fresh: boolean) =>
    analysis.pool.symbolicate(attempt, readMap, analysis.budget, { fresh })
  const isStop = (error: unknown) => error instanceof AnalysisStopped || error instanceof AnalysisFailed
  // Maps a worker was stopped on with other maps before them: the lookups that need each, and
  // what to send to try the map alone.
  const suspects = new Map<string, { own: FrameLookup[]; alone: FrameLookup[] }>()
  let attempt = lookups
  for (let tries = 1; attempt.length > 0; tries++) {
    try {
      Object.assign(out, await run(attempt, false))
      break
    } catch (error) {
      if (!isStop(error)) throw error
      logger.warn({ err: error, organizationId, release }, 'symbolication stopped')
      const culprit = error instanceof MapStopped ? error.blobKey : null
      const suspect = error instanceof MapStopped && !error.alone ? culprit : null
      const retry: FrameLookup[] = []
      const own: FrameLookup[] = []
      for (const lookup of attempt) {
        if (lookup.mapKey === suspect) own.push(lookup)
        else if (culprit === null || tries >= MAX_ATTEMPTS || lookup.mapKey === culprit)
          out[frameKey(lookup.frame)] = failed(lookup.frame)
        else retry.push({ ...lookup, callers: lookup.callers.filter((caller) => caller.mapKey !== culprit) })
      }
      if (suspect) {
        const alone = own.map((lookup) => ({
          ...lookup,
          callers: lookup.callers.filter((caller) => caller.mapKey === suspect),
        }))
        // A map named only by callers is tried through one of them; that answer is not used.
        const caller = attempt.flatMap((lookup) => lookup.callers).find((c) => c.mapKey === suspect)
        if (alone.length === 0 && caller) alone.push({ frame: caller.frame, mapKey: suspect, callers: [] })
        suspects.set(suspect, { own, alone })
      }
      // The map the worker was parsing is set aside: the others' frames go to a fresh worker.
      attempt = retry
    }
  }
  // Each suspect alone, in a worker started for it: only a map that fails there is to blame
  // (and the pool remembers it); one that the maps before it had crowded out resolves.
  for (const { own, alone } of suspects.values()) {
    let frames: Record<string, SymbolicatedFrame> = {}
    try {
      frames = await run(alone, true)
    } catch (error) {
      if (!isStop(error)) throw error
      logger.warn({ err: error, organizationId, release }, 'symbolication stopped on a map alone')
    }
    for (const lookup of own)
      out[frameKey(lookup.frame)] = frames[frameKey(lookup.frame)] ?? failed(lookup.frame)
  }
  return { release, frames: out }
}
