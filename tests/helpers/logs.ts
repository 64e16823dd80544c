import pino from 'pino'
import { logger } from '@/lib/log'

export interface LogRecord {
  level: number
  msg: string
  requestId?: string
  organizationId?: string
  functionId?: string
  runId?: string
  deliveryId?: string
  [field: string]: unknown
}

export interface CapturedLogs {
  /** The exact lines the service wrote, as a log shipper would receive them. */
  readonly lines: string[]
  records(): LogRecord[]
  restore(): void
}

type LineSink = { write(line: string): unknown }

/**
 * Captures what the app's logger writes, at the given level, instead of printing it: the real
 * serialisation (redaction, context fields) runs, only the destination changes.
 */
export function captureLogs(level: pino.Level = 'trace'): CapturedLogs {
  const stream = (logger as unknown as Record<symbol, LineSink>)[pino.symbols.streamSym]
  if (!stream) throw new Error('the logger has no destination stream to capture')
  const lines: string[] = []
  const write = stream.write
  const previousLevel = logger.level
  stream.write = (line: string) => {
    lines.push(line)
    return true
  }
  logger.level = level
  return {
    lines,
    records: () => lines.map((line) => JSON.parse(line) as LogRecord),
    restore() {
      stream.write = write
      logger.level = previousLevel
    },
  }
}
