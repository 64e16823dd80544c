import { type FloorPair, floorProblems, measureFloorPhase, startFloor } from './harness/floor'
import { type MemorySample, memoryOf } from './harness/machine'
import { round } from './harness/stats'

/**
 * The floor of the load and soak run (bench:load), measured in the same run before the
 * service starts: the minimal Next app and bare Node reading and parsing the same ingest
 * bodies (POST /floor/json) and answering a read of about the size of a Data API list
 * (GET /floor/json?bytes=N). The soak offers a paced mix rather than a maximum, so what is
 * compared is CPU per request: the floor's for the same mix of requests against ours.
 */

// A Data API list of 25 issues is a few KB.
const READ_BYTES = 4096

export interface SoakFloor {
  post: FloorPair
  get: FloorPair
  /** The minimal Next app's memory: just started, and after its phases. */
  nextMemory: { idle: MemorySample; afterLoad: MemorySample }
  problems: string[]
}

export async function measureSoakFloor(options: {
  bodies: string[]
  seconds: number
  connections: number
  progress: (line: string) => void
}): Promise<SoakFloor> {
  options.progress('floor: starting the minimal Next app and bare Node')
  const floor = await startFloor()
  try {
    // Settled after start, as the service's idle figure is.
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    const idle = memoryOf(floor.next.pid)
    const common = { floor, connections: options.connections, seconds: options.seconds }
    options.progress(`floor: POST /floor/json with ingest's bodies, GET /floor/json?bytes=${READ_BYTES}`)
    const post = await measureFloorPhase({
      ...common,
      method: 'POST',
      path: '/floor/json',
      body: (n) => options.bodies[n % options.bodies.length]!,
    })
    const get = await measureFloorPhase({ ...common, method: 'GET', path: '/floor/json', bytes: READ_BYTES })
    return {
      post,
      get,
      nextMemory: { idle, afterLoad: memoryOf(floor.next.pid) },
      problems: [...floorProblems(post), ...floorProblems(get)],
    }
  } finally {
    await floor.stop()
  }
}

export interface MixCpu {
  /** Our server's and Postgres' CPU ms per request answered during the load. */
  ours: { server: number | null; postgres: number | null }
  /** The floor's server CPU ms per request for the same mix: ingest as POST, the rest as GET. */
  floorNext: number | null
  bare: number | null
  /** Our server's CPU per request as a multiple of the floor's (lower is better). */
  vsFloor: number | null
  vsBare: number | null
}

/**
 * CPU per request of the mix: `ingest` requests weighted with the floor's POST, `other`
 * requests (reads, MCP, throttled) with its GET. `ours` is per request answered during the
 * load, background work (processing, deliveries) included: it is part of what the mix costs.
 */
export function mixCpu(
  floor: SoakFloor,
  requests: { ingest: number; other: number },
  ours: { server: number | null; postgres: number | null },
): MixCpu {
  const total = requests.ingest + requests.other
  const weighted = (post: number | null, get: number | null) =>
    post === null || get === null || total === 0
      ? null
      : round((post * requests.ingest + get * requests.other) / total, 3)
  const floorNext = weighted(floor.post.next.serverCpuMsPerRequest, floor.get.next.serverCpuMsPerRequest)
  const bare = weighted(floor.post.bare.serverCpuMsPerRequest, floor.get.bare.serverCpuMsPerRequest)
  const ratio = (of: number | null) => (ours.server === null || !of ? null : round(ours.server / of, 2))
  return { ours, floorNext, bare, vsFloor: ratio(floorNext), vsBare: ratio(bare) }
}
