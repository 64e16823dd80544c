import { MAX_DEBUG_IDS } from './schema'

/**
 * The SQL expression of a session's debug IDs after a batch (both ingest paths use it, so they
 * agree): the stored pairs with the batch's merged in (`existing || incoming`: a URL the batch
 * names again takes its new ID), and new URLs only while the session holds fewer than
 * MAX_DEBUG_IDS, so a recorder cannot grow the row without bound across batches. New URLs
 * beyond the bound are left out in key order, the same ones whichever path runs.
 *
 * `existing` and `incoming` are SQL expressions of type jsonb (a column, a parameter); each
 * may be null. Computed in the statement that writes the row, so it costs no round trip.
 */
export function mergeDebugIdsSql(existing: string, incoming: string): string {
  return `case
    when ${incoming} is null then ${existing}
    when ${existing} is null then ${incoming}
    else ${existing} || coalesce((
      select jsonb_object_agg(merged.key, merged.value) from (
        select known.key, known.value from jsonb_each(${incoming}) known
          where ${existing} -> known.key is not null
        union all
        (select fresh.key, fresh.value from jsonb_each(${incoming}) fresh
          where ${existing} -> fresh.key is null
          order by fresh.key
          limit greatest(0, ${MAX_DEBUG_IDS} - (select count(*) from jsonb_object_keys(${existing}))))
      ) merged
    ), '{}'::jsonb)
  end`
}
