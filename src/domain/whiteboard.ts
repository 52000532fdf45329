import { invalidArgument } from './errors.ts';

/**
 * Whiteboard access rules (spec 2.13), pure: who holds which role on a board and what
 * that role lets them do. Services and the live rooms both resolve access here, so the
 * REST `access` object and a room connection's read-only flag can never disagree.
 */

export const WHITEBOARD_ROLES = ['VIEWER', 'EDITOR', 'MANAGER', 'OWNER'] as const;
export type WhiteboardRole = (typeof WHITEBOARD_ROLES)[number];
/** Roles an ACL entry may hold; OWNER belongs to the board's owner alone. */
export const MEMBER_ROLES = ['VIEWER', 'EDITOR', 'MANAGER'] as const satisfies readonly WhiteboardRole[];
export type MemberRole = (typeof MEMBER_ROLES)[number];
/** What the audience rule grants: spec 2.13 says VIEWER or EDITOR only. */
export const DEFAULT_ROLES = ['VIEWER', 'EDITOR'] as const satisfies readonly WhiteboardRole[];
export type DefaultRole = (typeof DEFAULT_ROLES)[number];
export const AUDIENCES = ['PRIVATE', 'AUTHENTICATED'] as const;
export type Audience = (typeof AUDIENCES)[number];

/**
 * A board's one identity: its UUID as the API returns it, lower case with hyphens. Every
 * other spelling (upper or mixed case, braces, `urn:uuid:`, no hyphens, whitespace...) is
 * refused rather than folded, so a board has one room, one cap and one ACL check whatever a
 * client sends (issue 24).
 */
const CANONICAL_BOARD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isCanonicalBoardId(value: string): boolean {
  return CANONICAL_BOARD_ID.test(value);
}

export const TITLE_MAX_CHARS = 200;
export const TITLE_MAX_BYTES = 400;

const RANK: Record<WhiteboardRole, number> = { VIEWER: 1, EDITOR: 2, MANAGER: 3, OWNER: 4 };

export const roleRank = (role: WhiteboardRole): number => RANK[role];

export interface BoardAccessFacts {
  isOwner: boolean;
  /** The caller's ACL entry, when there is one. */
  memberRole: MemberRole | undefined;
  audience: Audience;
  defaultRole: DefaultRole;
  archived: boolean;
}

export interface Permissions {
  canView: boolean;
  canEdit: boolean;
  canManage: boolean;
}

export interface ResolvedAccess {
  role: WhiteboardRole;
  permissions: Permissions;
}

/**
 * The highest role that applies (owner, ACL entry, audience), or undefined for no access.
 * `mayWrite` is false for credentials that may only read (an API key without TRADE):
 * such a caller keeps its role but can neither edit nor manage. An archived board is
 * read-only for everyone; its managers can still change settings (to unarchive it).
 */
export function resolveAccess(facts: BoardAccessFacts, mayWrite: boolean): ResolvedAccess | undefined {
  const candidates: WhiteboardRole[] = [];
  if (facts.isOwner) candidates.push('OWNER');
  if (facts.memberRole) candidates.push(facts.memberRole);
  if (facts.audience === 'AUTHENTICATED') candidates.push(facts.defaultRole);
  if (candidates.length === 0) return undefined;
  const role = candidates.reduce((best, r) => (RANK[r] > RANK[best] ? r : best));
  return {
    role,
    permissions: {
      canView: true,
      canEdit: mayWrite && !facts.archived && RANK[role] >= RANK.EDITOR,
      canManage: mayWrite && RANK[role] >= RANK.MANAGER,
    },
  };
}

/** 1..200 characters (code points) and at most 400 UTF-8 bytes, trimmed, no control characters. */
export function checkTitle(raw: string, fieldPath = 'title'): string {
  const title = raw.trim();
  const chars = [...title].length;
  if (chars < 1 || chars > TITLE_MAX_CHARS) throw invalidArgument(fieldPath, `must be 1 to ${TITLE_MAX_CHARS} characters`, 'length');
  if (Buffer.byteLength(title, 'utf8') > TITLE_MAX_BYTES) {
    throw invalidArgument(fieldPath, `must be at most ${TITLE_MAX_BYTES} UTF-8 bytes`, 'max-bytes');
  }
  if (/[\u0000-\u001f\u007f-\u009f]/.test(title)) throw invalidArgument(fieldPath, 'must not contain control characters', 'control-characters');
  return title;
}

export function checkEnum<T extends string>(values: readonly T[], value: string, fieldPath: string): T {
  if (!(values as readonly string[]).includes(value)) throw invalidArgument(fieldPath, `must be one of ${values.join(', ')}`, 'enum');
  return value as T;
}
