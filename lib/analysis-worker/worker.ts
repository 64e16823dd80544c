// The entry of an analysis worker thread (started by ./pool.ts).
import { parentPort } from 'node:worker_threads'
import { serveAnalysis } from './serve'

if (!parentPort) throw new Error('the analysis worker runs in a worker thread')
serveAnalysis(parentPort)
