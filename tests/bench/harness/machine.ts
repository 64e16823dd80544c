import { readdirSync, readFileSync } from 'node:fs'

/**
 * Where the CPU went during a phase, from /proc (Linux; elsewhere every figure is null). With
 * the load generator, the server and the database on one machine, "is the server process at
 * 100% of a core" and "is the machine at 100%" tell which of them bounds the throughput.
 */

// USER_HZ: 100 on every mainstream Linux build; /proc reports CPU time in these ticks.
const TICKS_PER_SECOND = 100

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

function processTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return null
  }
}

function postgresTicks(): number | null {
  try {
    let total = 0
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue
      try {
        if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue
      } catch {
        continue
      }
      total += processTicks(Number(entry)) ?? 0
    }
    return total
  } catch {
    return null
  }
}

function machineTicks(): { busy: number; total: number } | null {
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

/** Percent of one core used on the whole machine over `ms`, before anything is started. */
export async function machineLoad(ms: number): Promise<number | null> {
  const before = machineTicks()
  await new Promise((resolve) => setTimeout(resolve, ms))
  const after = machineTicks()
  if (!before || !after) return null
  return Math.round((((after.busy - before.busy) / TICKS_PER_SECOND) * 1000 * 100) / ms)
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
