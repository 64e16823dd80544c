import { readdirSync, readFileSync } from 'node:fs'

/**
 * What the benchmark can see of the machine from /proc (Linux; elsewhere every figure is
 * null): CPU time of the server, of Postgres, of the whole machine, memory of the server, and
 * other work that would distort the figures. With the load generator, the server and the
 * database on one machine, "is the server process at 100% of a core" and "is the machine at
 * 100%" tell which of them bounds the throughput.
 */

// USER_HZ: 100 on every mainstream Linux build; /proc reports CPU time in these ticks.
const TICKS_PER_SECOND = 100
const MS_PER_TICK = 1000 / TICKS_PER_SECOND

/** The fields of /proc/<pid>/stat after the command name (index 1: ppid, 11-14: CPU ticks). */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name, which may itself hold spaces and parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return null
  }
}

function parentOf(pid: number): number | null {
  const fields = statFields(pid)
  return fields ? Number(fields[1]) : null
}

function pids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number)
  } catch {
    return []
  }
}

/** utime + stime of the process itself. */
const ownTicks = (fields: string[]) => Number(fields[11]) + Number(fields[12])

/**
 * utime + stime, plus cutime + cstime: the time of children already exited and reaped, such
 * as Postgres' parallel workers, which would otherwise vanish from the count.
 */
const ticksWithReaped = (fields: string[]) => ownTicks(fields) + Number(fields[13]) + Number(fields[14])

function processTicks(pid: number): number | null {
  const fields = statFields(pid)
  return fields ? ownTicks(fields) : null
}

const isPostgres = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres'
  } catch {
    return false
  }
}

function postgresTicks(): number | null {
  const all = pids()
  if (all.length === 0) return null
  let total = 0
  for (const pid of all) if (isPostgres(pid)) total += processTicks(pid) ?? 0
  return total
}

export function machineTicks(): { busy: number; total: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? ''
    const values = line.trim().split(/\s+/).slice(1).map(Number)
    const total = values.reduce((a, b) => a + b, 0)
    // idle and iowait are the time no process used.
    return { busy: total - (values[3] ?? 0) - (values[4] ?? 0), total }
  } catch {
    return null
  }
}

/** Share of all cores busy between two readings of machineTicks (null off Linux). */
export function machinePercentBetween(
  before: { busy: number; total: number } | null,
  after: { busy: number; total: number } | null,
): number | null {
  if (!before || !after) return null
  return Math.round(((after.busy - before.busy) / (after.total - before.total)) * 100)
}

/** Percent of one core used on the whole machine over `ms`, before anything is started. */
export async function machineLoad(ms: number): Promise<number | null> {
  const before = machineTicks()
  await new Promise((resolve) => setTimeout(resolve, ms))
  const after = machineTicks()
  if (!before || !after) return null
  return Math.round((((after.busy - before.busy) / TICKS_PER_SECOND) * 1000 * 100) / ms)
}

/** CPU milliseconds used so far by a process and its descendants, reaped ones included (null off Linux). */
export function treeCpuMs(root: number): number | null {
  const parent = new Map<number, number>()
  const ticks = new Map<number, number>()
  for (const pid of pids()) {
    const fields = statFields(pid)
    if (!fields) continue
    parent.set(pid, Number(fields[1]))
    ticks.set(pid, ticksWithReaped(fields))
  }
  if (!ticks.has(root)) return null
  let total = 0
  for (const [pid, used] of ticks)
    for (let p: number | undefined = pid; p && p > 1; p = parent.get(p))
      if (p === root) {
        total += used
        break
      }
  return total * MS_PER_TICK
}

/** CPU milliseconds used so far by every Postgres process of the machine, reaped children included (null if none). */
export function postgresCpuMs(): number | null {
  let total = 0
  let seen = false
  for (const pid of pids()) {
    if (!isPostgres(pid)) continue
    const fields = statFields(pid)
    if (!fields) continue
    seen = true
    total += ticksWithReaped(fields)
  }
  return seen ? total * MS_PER_TICK : null
}

export interface CpuSnapshot {
  at: number
  server: number | null
  postgres: number | null
  machineBusy: number | null
  machineTotal: number | null
  self: number
}

export interface CpuUsage {
  /** Percent of one core: 100 = one core fully busy. */
  serverPercent: number | null
  postgresPercent: number | null
  loadGeneratorPercent: number
  /** Percent of all cores together. */
  machinePercent: number | null
  /**
   * Percent of one core used by everything else on the machine: another workload, which
   * makes the figures of the phase unreliable.
   */
  otherPercent: number | null
}

export function cpuSnapshot(serverPid: number, withPostgres: boolean): CpuSnapshot {
  const machine = machineTicks()
  const self = process.cpuUsage()
  return {
    at: performance.now(),
    server: processTicks(serverPid),
    // Connections that ended during the phase take their CPU time with them, so this is a
    // lower bound; the service keeps a pool open, so it is close.
    postgres: withPostgres ? postgresTicks() : null,
    machineBusy: machine?.busy ?? null,
    machineTotal: machine?.total ?? null,
    self: (self.user + self.system) / 1000,
  }
}

/**
 * CPU milliseconds per request between two snapshots, of the server process and of Postgres
 * (null where not measured, or for no requests). /proc counts in 10 ms ticks: a phase needs
 * a few hundred requests for the figure to mean anything.
 */
export function cpuMsPerRequest(
  before: CpuSnapshot,
  after: CpuSnapshot,
  requests: number,
): { server: number | null; postgres: number | null } {
  const perRequest = (a: number | null, b: number | null) =>
    a === null || b === null || requests <= 0
      ? null
      : Math.round(((b - a) * MS_PER_TICK * 1000) / requests) / 1000
  return {
    server: perRequest(before.server, after.server),
    postgres: perRequest(before.postgres, after.postgres),
  }
}

export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): CpuUsage {
  const wallMs = after.at - before.at
  const percentOfCore = (a: number | null, b: number | null) =>
    a === null || b === null ? null : Math.round(((((b - a) / TICKS_PER_SECOND) * 1000) / wallMs) * 100)
  const serverPercent = percentOfCore(before.server, after.server)
  const postgresPercent = percentOfCore(before.postgres, after.postgres)
  const loadGeneratorPercent = Math.round(((after.self - before.self) / wallMs) * 100)
  // Every core's ticks count in the machine total; in % of one core the busy part is:
  const machineCores = percentOfCore(before.machineBusy, after.machineBusy)
  return {
    serverPercent,
    postgresPercent,
    loadGeneratorPercent,
    otherPercent:
      machineCores === null || serverPercent === null
        ? null
        : Math.max(0, machineCores - serverPercent - (postgresPercent ?? 0) - loadGeneratorPercent),
    machinePercent:
      before.machineBusy === null ||
      after.machineBusy === null ||
      before.machineTotal === null ||
      after.machineTotal === null
        ? null
        : Math.round(
            ((after.machineBusy - before.machineBusy) / (after.machineTotal - before.machineTotal)) * 100,
          ),
  }
}

export interface MemorySample {
  /** Resident set of the server process, MiB. */
  rssMiB: number | null
  /**
   * Anonymous resident memory, MiB: the V8 heap plus native allocations (Buffers, sockets),
   * without mapped files. The V8 heap itself cannot be read from outside the process.
   */
  anonMiB: number | null
  /**
   * Proportional set size, MiB: each page shared between processes counted once, in shares.
   * The figure to add up across processes (Postgres' backends all map its shared buffers,
   * which RSS counts in every one of them). Null where smaps_rollup cannot be read.
   */
  pssMiB: number | null
  /** Processes in the server's tree (1: server.mjs serves in its own process). */
  processes: number
}

function statusKiB(pid: number, field: string): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) : null
  } catch {
    return null
  }
}

/** Pss of a process from /proc/<pid>/smaps_rollup, KiB (null if unreadable: another user's). */
function pssKiB(pid: number): number | null {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))
    return match ? Number(match[1]) : null
  } catch {
    return null
  }
}

/** The pid and its descendants, from the parent pids in /proc. */
function tree(root: number): number[] {
  const all = pids()
  if (all.length === 0) return [root]
  const parent = new Map<number, number>()
  for (const pid of all) {
    const ppid = parentOf(pid)
    if (ppid !== null) parent.set(pid, ppid)
  }
  return [...parent.keys()].filter((pid) => {
    for (let p: number | undefined = pid; p && p > 1; p = parent.get(p)) if (p === root) return true
    return false
  })
}

const mib = (kib: number) => Math.round((kib / 1024) * 10) / 10

/** Resident memory of a set of processes together. */
function memoryOfAll(members: number[]): MemorySample {
  let rss = 0
  let anon = 0
  let pss = 0
  let pssComplete = true
  let seen = false
  for (const p of members) {
    const r = statusKiB(p, 'VmRSS')
    if (r === null) continue
    seen = true
    rss += r
    anon += statusKiB(p, 'RssAnon') ?? 0
    const share = pssKiB(p)
    if (share === null) pssComplete = false
    else pss += share
  }
  return {
    rssMiB: seen ? mib(rss) : null,
    anonMiB: seen ? mib(anon) : null,
    pssMiB: seen && pssComplete ? mib(pss) : null,
    processes: members.length,
  }
}

/** Resident memory of a process and its descendants. */
export function memoryOf(pid: number): MemorySample {
  return memoryOfAll(tree(pid))
}

/**
 * Resident memory of every Postgres process of the machine (the postmaster, its background
 * workers and every backend, of every database on the server). Add up pssMiB, not rssMiB:
 * the shared buffers are mapped into every backend and RSS counts them in each.
 */
export function postgresMemory(): MemorySample {
  return memoryOfAll(pids().filter(isPostgres))
}

/**
 * Other builds, servers, benchmarks or test runs on the machine: they share its cores and
 * would distort the figures. Our own ancestors (npm, the tsx wrapper) and descendants (the
 * servers this run started) are not "other". One line per process: pid and command line.
 */
export function otherNextProcesses(): string[] {
  const ancestors = new Set<number>()
  for (let pid: number | null = process.pid; pid && !ancestors.has(pid); pid = parentOf(pid))
    ancestors.add(pid)
  const found: string[] = []
  for (const pid of pids()) {
    if (ancestors.has(pid)) continue
    let mine = false
    for (let p: number | null = parentOf(pid); p && p > 1 && !mine; p = parentOf(p)) mine = p === process.pid
    if (mine) continue
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim()
      // A grep for these names is someone looking, not load.
      if (/^(p?grep|rg) /.test(cmdline)) continue
      if (/next (build|start)|next-server|tests\/bench\/|vitest|bin\/tsc/.test(cmdline))
        found.push(`${pid} ${cmdline}`)
    } catch {
      // the process ended while we looked
    }
  }
  return found
}

/**
 * The other work that is using CPU: a process that only waits (a script polling for a quiet
 * machine before it starts a benchmark of its own) matches by name but loads nothing.
 */
export async function busyOtherWork(): Promise<string[]> {
  const candidates = otherNextProcesses()
  if (candidates.length === 0) return []
  const pidOf = (line: string) => Number(line.split(' ')[0])
  const before = candidates.map((line) => treeCpuMs(pidOf(line)))
  await new Promise((resolve) => setTimeout(resolve, 2_000))
  return candidates.filter((line, i) => {
    const start = before[i]
    const end = treeCpuMs(pidOf(line))
    // More than 5% of a core over the 2 s: this process or its children are working.
    return start === null || start === undefined || end === null || end - start > 100
  })
}
