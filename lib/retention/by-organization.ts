/** Expired rows' ids per organization: retention deletes one organization's rows per transaction. */
export function idsByOrganization<Row extends { organizationId: string }>(
  rows: readonly Row[],
  idOf: (row: Row) => string,
): Map<string, string[]> {
  const grouped = new Map<string, string[]>()
  for (const row of rows) {
    const ids = grouped.get(row.organizationId)
    if (ids) ids.push(idOf(row))
    else grouped.set(row.organizationId, [idOf(row)])
  }
  return grouped
}
