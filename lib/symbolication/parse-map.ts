/**
 * Reading an uploaded source map (docs/source-maps.md). Anyone with a `write:sourcemaps` key
 * can upload one, so the JSON is checked for the shape trace-mapping relies on before it is
 * handed over, and its mappings are bounded before they are decoded: a map of `;` alone
 * would otherwise decode into millions of arrays. Runs in the analysis worker only.
 */
import { decodedMappings, FlattenMap, TraceMap } from '@jridgewell/trace-mapping'
import { BYTES_PER_MAPPING_INTEGER } from './heap-estimate'

/** Largest map read from storage; bigger ones fail their frames without being read. */
export const MAX_MAP_BYTES = 40 * 1024 * 1024
/**
 * Generated lines, and numbers in the mappings, a map may have. Decoded, each number costs
 * about 20 bytes of worker heap (segments of 4 or 5 in arrays): 10 million is some 200 MB,
 * about what a 10 MB `mappings` string of a very large bundle holds.
 */
const MAX_MAPPING_LINES = 1_000_000
const MAX_MAPPING_INTEGERS = 10_000_000
const MAX_SOURCES = 100_000
const MAX_NAMES = 1_000_000
/** Index maps (`sections`): only one level, and only this many sections. */
const MAX_SECTIONS = 256

/** The map cannot be used; its frames are `failed`. The message names what is wrong, never the content. */
export class MapRejected extends Error {
  override name = 'MapRejected'
}

/** A parsed map and what lookups compute from it once. */
export interface ParsedMap {
  trace: TraceMap
  /** Size of the JSON it was parsed from. */
  bytes: number
  /**
   * Estimated heap it holds once parsed: its JSON's size plus its decoded mappings. What the
   * cache counts (the peak while parsing, heap-estimate.ts, is higher).
   */
  heapBytes: number
  /** Start offset of each line of a source's content, by source index, computed on first use. */
  lineStarts: Map<number, Uint32Array>
}

const decoder = new TextDecoder('utf-8', { fatal: true })

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

function checkStrings(value: unknown, what: string, max: number, nullable: boolean): void {
  if (!Array.isArray(value)) throw new MapRejected(`${what} is not an array`)
  if (value.length > max) throw new MapRejected(`${what} has more than ${max} entries`)
  for (const item of value)
    if (typeof item !== 'string' && !(nullable && item === null))
      throw new MapRejected(`${what} holds something other than strings`)
}

/** Base64 digit values by character code, -1 for characters a VLQ never holds. */
const BASE64 = new Int8Array(128).fill(-1)
for (let i = 0; i < 64; i++)
  BASE64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i

/**
 * Checks the mappings without decoding them (one pass over the characters): only VLQ digits
 * and separators, and no more lines and numbers than MAX_MAPPING_LINES and
 * MAX_MAPPING_INTEGERS. Returns the numbers it holds: decoding costs memory by them.
 */
function checkMappings(mappings: string): number {
  let lines = 1
  let integers = 0
  for (let i = 0; i < mappings.length; i++) {
    const code = mappings.charCodeAt(i)
    if (code === 59) lines++
    else if (code !== 44) {
      const digit = code < 128 ? BASE64[code]! : -1
      if (digit < 0) throw new MapRejected('mappings holds a character that is no VLQ digit')
      // A digit without the continuation bit ends a number.
      if (digit < 32) integers++
    }
  }
  if (lines > MAX_MAPPING_LINES) throw new MapRejected(`mappings has more than ${MAX_MAPPING_LINES} lines`)
  if (integers > MAX_MAPPING_INTEGERS)
    throw new MapRejected(`mappings holds more than ${MAX_MAPPING_INTEGERS} numbers`)
  return integers
}

const MAX_SOURCE_ROOT_CHARS = 1_024

/**
 * A plain (not sectioned) version 3 map, within the bounds lookups hold to; throws
 * MapRejected. Uploads run it too, so a map symbolication would refuse is refused when it is
 * uploaded, with the reason, not found out frame by frame later.
 */
export function checkRegularMap(map: Record<string, unknown>): number {
  if (map.version !== undefined && map.version !== 3) throw new MapRejected('not a version 3 source map')
  if (typeof map.mappings !== 'string') throw new MapRejected('mappings is not a string')
  checkStrings(map.sources, 'sources', MAX_SOURCES, true)
  if (map.names !== undefined) checkStrings(map.names, 'names', MAX_NAMES, false)
  if (map.sourcesContent !== undefined && map.sourcesContent !== null)
    checkStrings(map.sourcesContent, 'sourcesContent', MAX_SOURCES, true)
  if (map.sourceRoot !== undefined && map.sourceRoot !== null && typeof map.sourceRoot !== 'string')
    throw new MapRejected('sourceRoot is not a string')
  // Joined to every source when the map is read: a long one costs sources × its length.
  if (typeof map.sourceRoot === 'string' && map.sourceRoot.length > MAX_SOURCE_ROOT_CHARS)
    throw new MapRejected(`sourceRoot is longer than ${MAX_SOURCE_ROOT_CHARS} characters`)
  // Not used here, and trace-mapping would index with it unchecked.
  if (map.ignoreList !== undefined) delete map.ignoreList
  return checkMappings(map.mappings)
}

/** An index map: sections in order, each a plain map at a non-negative offset. */
function checkSections(sections: unknown): number {
  if (!Array.isArray(sections)) throw new MapRejected('sections is not an array')
  if (sections.length > MAX_SECTIONS) throw new MapRejected(`more than ${MAX_SECTIONS} sections`)
  let lastLine = -1
  let lastColumn = -1
  let integers = 0
  for (const section of sections) {
    if (!isRecord(section) || !isRecord(section.offset) || !isRecord(section.map))
      throw new MapRejected('a section has no offset or map')
    const { line, column } = section.offset
    if (!isNonNegativeInteger(line) || !isNonNegativeInteger(column))
      throw new MapRejected('a section offset is not a non-negative integer')
    if (line < lastLine || (line === lastLine && column < lastColumn))
      throw new MapRejected('sections are not in order')
    lastLine = line
    lastColumn = column
    if (section.map.sections !== undefined) throw new MapRejected('nested sections')
    integers += checkRegularMap(section.map)
  }
  if (integers > MAX_MAPPING_INTEGERS)
    throw new MapRejected(`sections hold more than ${MAX_MAPPING_INTEGERS} numbers`)
  return integers
}

/**
 * Parses a map's JSON and decodes its mappings. Throws MapRejected when it is not a source
 * map this service can use (not JSON, wrong shape, over a bound).
 */
export function parseSourceMap(bytes: Uint8Array): ParsedMap {
  if (bytes.byteLength > MAX_MAP_BYTES) throw new MapRejected(`larger than ${MAX_MAP_BYTES} bytes`)
  let json: unknown
  try {
    json = JSON.parse(decoder.decode(bytes))
  } catch {
    throw new MapRejected('not JSON (UTF-8)')
  }
  if (!isRecord(json)) throw new MapRejected('not a JSON object')
  let trace: TraceMap
  let integers: number
  try {
    if (json.sections !== undefined) {
      integers = checkSections(json.sections)
      trace = FlattenMap(json as unknown as Parameters<typeof FlattenMap>[0])
    } else {
      integers = checkRegularMap(json)
      trace = new TraceMap(json as unknown as ConstructorParameters<typeof TraceMap>[0])
    }
    // Decoded here, once: what the cache holds is the map as lookups use it.
    decodedMappings(trace)
  } catch (error) {
    if (error instanceof MapRejected) throw error
    throw new MapRejected(`unreadable: ${error instanceof Error ? error.name : 'error'}`)
  }
  return {
    trace,
    bytes: bytes.byteLength,
    heapBytes: bytes.byteLength + integers * BYTES_PER_MAPPING_INTEGER,
    lineStarts: new Map(),
  }
}
