import type { CliCommand } from '../command'
import { jobsRun } from './jobs'
import { keyCreate, keyRevoke } from './key'
import { orgCreate, orgList, orgNetworkDetails, orgPlan } from './org'
import { privacyErase, privacyRotateKeys } from './privacy'
import { orgRetention, retentionRun, sessionDelete } from './retention'
import { signalCreate } from './signal'
import { sourcemapsUpload } from './sourcemaps'
import { userCreate, userOperator } from './user'
import { webhookCreate, webhookList, webhookRevoke } from './webhook'

export const commands: CliCommand[] = [
  orgCreate,
  orgList,
  orgPlan,
  orgRetention,
  orgNetworkDetails,
  userCreate,
  userOperator,
  keyCreate,
  keyRevoke,
  signalCreate,
  jobsRun,
  webhookCreate,
  webhookList,
  webhookRevoke,
  sessionDelete,
  retentionRun,
  sourcemapsUpload,
  privacyErase,
  privacyRotateKeys,
]
