/** The options of a "Saved search" select: none ("Any session") first, then the organization's. */
export function SavedSearchOptions({
  savedSearches,
}: {
  savedSearches: readonly { id: string; name: string }[]
}) {
  return (
    <>
      <option value="">Any session</option>
      {savedSearches.map((s) => (
        <option key={s.id} value={s.id}>
          {s.name}
        </option>
      ))}
    </>
  )
}
