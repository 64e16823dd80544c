import { z } from 'zod'
import { ROLES } from '@/db/schema'
import { isStorableText, NOT_STORABLE } from '@/lib/validation'
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password'

export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(
    z.email({ error: 'E-mail must be a valid address' }).max(254, 'E-mail must be at most 254 characters'),
  )
export const Password = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `Password must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `Password must be at most ${PASSWORD_MAX_LENGTH} characters`)
export const Role = z.enum(ROLES, { error: 'Role must be one of: owner, member' })
export const PersonName = z
  .string()
  .trim()
  .max(100, 'Name must be at most 100 characters')
  .refine(isStorableText, `Name ${NOT_STORABLE}`)
  .optional()
