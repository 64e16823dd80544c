'use server'

import { revalidatePath } from 'next/cache'
import { type ActionResult, memberAction } from '@/lib/http/actions'
import { createSignal } from '@/lib/signals/create-signal'
import { deleteSignal } from '@/lib/signals/delete-signal'
import { setSignalStatus } from '@/lib/signals/set-signal-status'
import { formText, textArgument } from '@/lib/validation'

export type CreateSignalResult = ActionResult<{ message: string; signalId: string }>

const LIST = '/signals'

export const createSignalAction = memberAction(
  { what: 'create the signal' },
  async (
    { db, organization },
    _previous: CreateSignalResult | null,
    form: FormData,
  ): Promise<CreateSignalResult> => {
    // Its backfill event is handed to the jobs engine when the signal commits.
    const { signal } = await createSignal(db, {
      organizationId: organization.id,
      name: formText(form, 'name'),
      prompt: formText(form, 'prompt'),
      savedSearchId: formText(form, 'savedSearchId'),
    })
    revalidatePath(LIST)
    return {
      ok: true,
      signalId: signal.id,
      message: `Signal “${signal.name}” created. New sessions are matched from now on; sessions of the last 30 days are being scanned.`,
    }
  },
)

const changeStatus = (status: 'active' | 'paused') =>
  memberAction(
    { what: status === 'paused' ? 'pause the signal' : 'resume the signal' },
    async ({ db, organization }, signalId: string): Promise<ActionResult> => {
      const { signal } = await setSignalStatus(db, {
        organizationId: organization.id,
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
    },
  )

export const pauseSignalAction = changeStatus('paused')

export const resumeSignalAction = changeStatus('active')

export const deleteSignalAction = memberAction(
  { what: 'delete the signal' },
  async ({ db, organization }, signalId: string): Promise<ActionResult> => {
    const { deletedMatches } = await deleteSignal(db, {
      organizationId: organization.id,
      signalId: textArgument(signalId),
    })
    revalidatePath(LIST)
    return {
      ok: true,
      message: `Signal deleted with its ${deletedMatches} ${deletedMatches === 1 ? 'match' : 'matches'}.`,
    }
  },
)
