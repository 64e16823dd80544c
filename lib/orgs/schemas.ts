import { z } from 'zod'
import { PLANS } from '@/db/schema'

export const OrganizationName = z
  .string()
  .trim()
  .min(1, 'Organization name must not be empty')
  .max(100, 'Organization name must be at most 100 characters')
export const Plan = z.enum(PLANS, { error: 'Plan must be one of: free, paid' })
