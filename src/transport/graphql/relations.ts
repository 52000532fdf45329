/**
 * The relations of a Pothos query of a type in select mode, as the `include` of the
 * service read that answers its rows: the service reads whole rows (its views need every
 * column) and, with them, the relations the selection asks for.
 */
export function relationsOf<Include extends object>(query: { select?: object } | { include?: object }): Include {
  const selected = 'select' in query ? (query.select ?? {}) : 'include' in query ? (query.include ?? {}) : {};
  return Object.fromEntries(Object.entries(selected).filter(([, v]) => typeof v === 'object' && v !== null)) as Include;
}
