import type { CliCommand } from '../command'
import { jobsRun } from './jobs'
import { keyCreate, keyRevoke } from './key'
import { orgCreate, orgPlan } from './org'
import { signalCreate } from './signal'
import { userCreate } from './user'
import { webhookCreate, webhookList, webhookRevoke } from './webhook'

export const commands: CliCommand[] = [
  orgCreate,
  orgPlan,
  userCreate,
  keyCreate,
  keyRevoke,
  signalCreate,
  jobsRun,
  webhookCreate,
  webhookList,
  webhookRevoke,
]
