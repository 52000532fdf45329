import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errorCatalogue.ts';
import {
  AUDIENCES,
  checkTitle,
  DEFAULT_ROLES,
  MEMBER_ROLES,
  resolveAccess,
  roleRank,
  type BoardAccessFacts,
  type WhiteboardRole,
} from '../../src/domain/whiteboard.ts';

const facts = fc.record<BoardAccessFacts>({
  isOwner: fc.boolean(),
  memberRole: fc.option(fc.constantFrom(...MEMBER_ROLES), { nil: undefined }),
  audience: fc.constantFrom(...AUDIENCES),
  defaultRole: fc.constantFrom(...DEFAULT_ROLES),
  archived: fc.boolean(),
});

function applicable(f: BoardAccessFacts): WhiteboardRole[] {
  return [...(f.isOwner ? ['OWNER' as const] : []), ...(f.memberRole ? [f.memberRole] : []), ...(f.audience === 'AUTHENTICATED' ? [f.defaultRole] : [])];
}

describe('whiteboard access resolution (property)', () => {
  it('is the highest applicable role, and none without one', () => {
    fc.assert(
      fc.property(facts, fc.boolean(), (f, mayWrite) => {
        const access = resolveAccess(f, mayWrite);
        const roles = applicable(f);
        if (roles.length === 0) return access === undefined;
        return access !== undefined && roleRank(access.role) === Math.max(...roles.map(roleRank)) && access.permissions.canView;
      }),
    );
  });

  it('never lowers a role when a grant is added', () => {
    fc.assert(
      fc.property(facts, fc.constantFrom(...MEMBER_ROLES), (f, extra) => {
        const before = resolveAccess(f, true);
        const withMember = { ...f, memberRole: f.memberRole && roleRank(f.memberRole) > roleRank(extra) ? f.memberRole : extra };
        const after = resolveAccess(withMember, true)!;
        return before === undefined || roleRank(after.role) >= roleRank(before.role);
      }),
    );
  });

  it('edits only as EDITOR or above, never on an archived board or with a read-only credential; manages only as MANAGER or above', () => {
    fc.assert(
      fc.property(facts, fc.boolean(), (f, mayWrite) => {
        const access = resolveAccess(f, mayWrite);
        if (!access) return true;
        const { canEdit, canManage } = access.permissions;
        return (
          canEdit === (mayWrite && !f.archived && roleRank(access.role) >= roleRank('EDITOR')) &&
          canManage === (mayWrite && roleRank(access.role) >= roleRank('MANAGER'))
        );
      }),
    );
  });
});

describe('whiteboard titles', () => {
  const rejected = (t: string) => {
    try {
      checkTitle(t);
      return false;
    } catch (err) {
      return err instanceof ApiError && err.status === 400;
    }
  };

  it('accepts 1..200 characters of at most 400 UTF-8 bytes, trimmed, and rejects everything else', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 260 }), (raw) => {
        const t = raw.trim();
        const ok = [...t].length >= 1 && [...t].length <= 200 && Buffer.byteLength(t) <= 400 && !/[\u0000-\u001f\u007f-\u009f]/.test(t);
        return ok ? checkTitle(raw) === t : rejected(raw);
      }),
    );
  });
});
