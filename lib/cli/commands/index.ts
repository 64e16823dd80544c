import type { CliCommand } from '../command'
import { keyCreate, keyRevoke } from './key'
import { orgCreate, orgPlan } from './org'
import { userCreate } from './user'

export const commands: CliCommand[] = [orgCreate, orgPlan, userCreate, keyCreate, keyRevoke]
