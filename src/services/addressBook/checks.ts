import { errors } from '../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import { ENTRY_LABEL_MAX, ENTRY_NOTE_MAX } from './createAddressBookEntry.schema.ts';
import { TAG_COLOR_MAX, TAG_NAME_MAX } from './createAddressBookTag.schema.ts';

/** The rules of spec 2.3, once, and the errors the operations share. */

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const NOTE_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const COLOR = /^[A-Za-z0-9#._-]*$/;

const chars = (s: string) => [...s].length;

export function checkLabel(raw: string, fieldPath = 'label'): string {
  const label = raw.trim();
  if (chars(label) < 1 || chars(label) > ENTRY_LABEL_MAX) {
    throw invalidArgument(fieldPath, `must be 1 to ${ENTRY_LABEL_MAX} characters`, 'length');
  }
  if (CONTROL.test(label)) throw invalidArgument(fieldPath, 'must not contain control characters', 'control-characters');
  return label;
}

export function checkNote(note: string, fieldPath = 'note'): string | null {
  if (chars(note) > ENTRY_NOTE_MAX) throw invalidArgument(fieldPath, `must be at most ${ENTRY_NOTE_MAX} characters`, 'length');
  if (NOTE_CONTROL.test(note)) throw invalidArgument(fieldPath, 'must not contain control characters', 'control-characters');
  return note === '' ? null : note;
}

export function checkTagName(raw: string, fieldPath = 'name'): string {
  const name = raw.trim();
  if (chars(name) < 1 || chars(name) > TAG_NAME_MAX) {
    throw invalidArgument(fieldPath, `must be 1 to ${TAG_NAME_MAX} characters`, 'length');
  }
  if (CONTROL.test(name)) throw invalidArgument(fieldPath, 'must not contain control characters', 'control-characters');
  return name;
}

export function checkColor(color: string, fieldPath = 'color'): string | null {
  if (color.length > TAG_COLOR_MAX || !COLOR.test(color)) {
    throw invalidArgument(
      fieldPath,
      `must be a UI color token of at most ${TAG_COLOR_MAX} letters, digits or "#._-"`,
      'color-token',
    );
  }
  return color === '' ? null : color;
}

export const entryNotFound = () =>
  errors.ADDRESS_BOOK_ENTRY_NOT_FOUND('address-book entry not found');
export const tagNotFound = (fieldPath?: string) =>
  errors.ADDRESS_BOOK_TAG_NOT_FOUND('address-book tag not found', {
    ...(fieldPath ? { violations: [{ fieldPath, message: 'no such tag in this address book', ruleId: 'exists' }] } : {}),
  });
export const duplicateTag = (name: string) =>
  errors.CONFLICT_DUPLICATE_TAG(`a tag named "${name}" already exists in this address book`, {
    violations: [{ fieldPath: 'name', message: 'is already used by another tag of this book', ruleId: 'unique' }],
  });
export const staleRevision = (current: bigint, expected: bigint | undefined) =>
  errors.CONFLICT_STALE_REVISION(`the entry is at revision ${current}, not ${expected}`, {
    violations: [{ fieldPath: 'expectedRevision', message: 'is not the current revision', ruleId: 'stale-revision' }],
  });

export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';
}
