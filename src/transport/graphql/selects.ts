import type { GraphQLResolveInfo, SelectionSetNode } from 'graphql';

/** Whether the field being resolved selects `name` anywhere below it (fragments followed): loads what only that field needs. */
export function selects(info: GraphQLResolveInfo, name: string): boolean {
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode | undefined): boolean =>
    (set?.selections ?? []).some((sel) => {
      if (sel.kind === 'Field') return sel.name.value === name || walk(sel.selectionSet);
      if (sel.kind === 'InlineFragment') return walk(sel.selectionSet);
      if (seen.has(sel.name.value)) return false;
      seen.add(sel.name.value);
      return walk(info.fragments[sel.name.value]?.selectionSet);
    });
  return info.fieldNodes.some((f) => walk(f.selectionSet));
}
