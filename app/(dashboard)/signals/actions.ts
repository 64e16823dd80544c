'use server'

import { revalidatePath } from 'next/cache'
import { getDb } from '@/lib/db'
import { type ActionResult, actionFailure, actionMember } from '@/lib/http/actions'
import { createSignal } from '@/lib/signals/create-signal'
import { deleteSignal } from '@/lib/signals/delete-signal'
import { setSignalStatus } from '@/lib/signals/set-signal-status'
import { formText, textArgument } from '@/lib/validation'

export type CreateSignalResult = ActionResult<{ message: string; signalId: string }>

const LIST = '/signals'

export async function createSignalAction(
  _previous: CreateSignalResult | null,
  form: FormData,
): Promise<CreateSignalResult> {
  const member = await actionMember()
  if (!member.ok) return member
  try {
    const db = await getDb()
    // Its backfill event is handed to the jobs engine when the signal commits.
    const { signal } = await createSignal(db, {
      organizationId: member.organization.id,
      name: formText(form, 'name'),
      prompt: formText(form, 'prompt'),
    })
    revalidatePath(LIST)
    return {
      ok: true,
      signalId: signal.id,
      message: `Signal “${signal.name}” created. New sessions are matched from now on; sessions of the last 30 days are being scanned.`,
    }
  } catch (error) {
    return actionFailure(error, 'create the signal')
  }
}

async function changeStatus(signalId: string, status: 'active' | 'paused'): Promise<ActionResult> {
  const member = await actionMember()
  if (!member.ok) return member
  try {
    const db = await getDb()
    const { signal } = await setSignalStatus(db, {
      organizationId: member.organization.id,
      signalId: textArgument(signalId),
      status,
    })
    revalidatePath(LIST)
    revalidatePath(`${LIST}/${signal.id}`)
    return {
      ok: true,
      message:
        status === 'paused'
          ? `Paused “${signal.name}”: new sessions are not matched against it.`
          : `Resumed “${signal.name}”: new sessions are matched against it again.`,
    }
  } catch (error) {
    return actionFailure(error, status === 'paused' ? 'pause the signal' : 'resume the signal')
  }
}

export async function pauseSignalAction(signalId: string): Promise<ActionResult> {
  return changeStatus(signalId, 'paused')
}

export async function resumeSignalAction(signalId: string): Promise<ActionResult> {
  return changeStatus(signalId, 'active')
}

export async function deleteSignalAction(signalId: string): Promise<ActionResult> {
  const member = await actionMember()
  if (!member.ok) return member
  try {
    const { deletedMatches } = await deleteSignal(await getDb(), {
      organizationId: member.organization.id,
      signalId: textArgument(signalId),
    })
    revalidatePath(LIST)
    return {
      ok: true,
      message: `Signal deleted with its ${deletedMatches} ${deletedMatches === 1 ? 'match' : 'matches'}.`,
    }
  } catch (error) {
    return actionFailure(error, 'delete the signal')
  }
}
