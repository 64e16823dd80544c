import type { InngestFunction } from 'inngest'
import { toInngestFunction } from '@/lib/jobs/inngest'
import { getJobDefinitions } from './app'
import { getInngestClient } from './client'

let functions: InngestFunction.Any[] | undefined

/** The same list the in-process engine runs, wrapped for Inngest once, on first use. */
export function getInngestFunctions(): InngestFunction.Any[] {
  functions ??= getJobDefinitions().map((def) => toInngestFunction(def, getInngestClient()))
  return functions
}
