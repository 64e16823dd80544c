/**
 * What a source map costs the analysis worker's heap, and whether a worker is given it at all
 * (docs/source-maps.md, "Memory"). The estimate is computed once, at upload, from figures the
 * upload's check already has (the JSON's size and the numbers its mappings hold), and stored
 * with the map's row: the server thread decides admission without reading or parsing the map.
 * Pure: runs in the worker (uploads' checks) and on the server thread (admission).
 */

/** Heap a decoded number of the mappings takes: segments of 4 or 5 numbers, each an array. */
export const BYTES_PER_MAPPING_INTEGER = 20

/**
 * While a map is parsed its JSON is alive three times over: the bytes handed to the worker,
 * their text, and the parsed object (whose strings, sourcesContent above all, stay with the
 * parsed map).
 */
export const HEAP_PER_JSON_BYTE = 3

/**
 * For maps uploaded before estimates were stored (`heap_estimate_bytes` null): heap per byte
 * of the stored map. Bundler maps measured 7–9 (mappings a third of the JSON, sourcesContent
 * the rest); the margin errs towards skipping a map rather than stopping a worker.
 */
export const HEAP_PER_STORED_BYTE = 10

/**
 * Share of the worker's heap (ANALYSIS_MEMORY_MB) one map may take while it is parsed. The
 * parsed-map cache keeps at most a quarter (map-cache.ts) and the worker's own code needs
 * some: the three together stay under the limit.
 */
export const MAP_HEAP_SHARE = 0.4

/** The heap a map takes at its peak, while it is parsed and decoded: what uploads store. */
export function mapHeapEstimate(jsonBytes: number, mappingIntegers: number): number {
  return jsonBytes * HEAP_PER_JSON_BYTE + mappingIntegers * BYTES_PER_MAPPING_INTEGER
}

/** A stored map's estimate: the one computed at upload, else one from its size. */
export function storedHeapEstimate(row: { sizeBytes: number; heapEstimateBytes: number | null }): number {
  return row.heapEstimateBytes ?? row.sizeBytes * HEAP_PER_STORED_BYTE
}

/** The heap one map may take in a worker of `memoryMb`. */
export function mapHeapBudgetBytes(memoryMb: number): number {
  return Math.floor(memoryMb * 1024 * 1024 * MAP_HEAP_SHARE)
}

/**
 * Whether a worker of `memoryMb` is given the map. One that is not has its frames `failed`
 * without being read, and is not remembered as stopped: nothing ran, and a larger budget
 * would take it.
 */
export function admitsMap(
  row: { sizeBytes: number; heapEstimateBytes: number | null },
  memoryMb: number,
): boolean {
  return storedHeapEstimate(row) <= mapHeapBudgetBytes(memoryMb)
}
