import { z } from 'zod'
import { PLANS } from '@/db/schema'
import { isStorableText, NOT_STORABLE } from '@/lib/validation'

export const OrganizationName = z
  .string()
  .trim()
  .min(1, 'Organization name must not be empty')
  .max(100, 'Organization name must be at most 100 characters')
  .refine(isStorableText, `Organization name ${NOT_STORABLE}`)
export const Plan = z.enum(PLANS, { error: 'Plan must be one of: free, paid' })
