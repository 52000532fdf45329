import * as Y from 'yjs';
import { columnMisfit, misfitFactory, modelSpecs, type ColumnSpec } from '../../infra/columnLimits.ts';
import { invalidArgument } from '../../domain/errors.ts';

/**
 * `initialSnapshot` {elements, version}: an Excalidraw-style scene that seeds a board's
 * Y.Doc at creation. Mapping (docs/api-decisions.md, "Whiteboards"):
 * - `doc.getArray('elements')`: one Y.Map per element, in scene order; each top-level field
 *   of the element is one key of its Y.Map holding the JSON value as is, so two clients
 *   changing different fields of one element both keep their change.
 * - `doc.getMap('scene').get('version')`: the snapshot's `version`.
 */
export const SCENE_MAX_ELEMENTS = 5_000;
export const SCENE_MAX_BYTES = 512 * 1024;
export const ELEMENT_ID_MAX = 64;

export interface Scene {
  elements: Record<string, unknown>[];
  version: number;
}

export const EMPTY_SCENE: Scene = { elements: [], version: 0 };

/** The scene as given, checked: elements are objects with a unique string `id`. */
export function checkScene(raw: unknown, fieldPath = 'initialSnapshot'): Scene {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalidArgument(fieldPath, 'must be an object {elements, version}', 'type');
  const { elements, version, ...rest } = raw as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) throw invalidArgument(`${fieldPath}.${extra}`, 'is not a field of a snapshot', 'unknown-field');
  if (!Number.isInteger(version) || (version as number) < 0 || (version as number) > 2_147_483_647) {
    throw invalidArgument(`${fieldPath}.version`, 'must be an integer from 0 to 2147483647', 'int32');
  }
  if (!Array.isArray(elements)) throw invalidArgument(`${fieldPath}.elements`, 'must be an array', 'type');
  if (elements.length > SCENE_MAX_ELEMENTS) {
    throw invalidArgument(`${fieldPath}.elements`, `must have at most ${SCENE_MAX_ELEMENTS} elements`, 'max-items');
  }
  const ids = new Set<string>();
  elements.forEach((el, i) => {
    const path = `${fieldPath}.elements[${i}]`;
    if (el === null || typeof el !== 'object' || Array.isArray(el)) throw invalidArgument(path, 'must be an object', 'type');
    const id = (el as Record<string, unknown>).id;
    if (typeof id !== 'string' || id.length < 1 || id.length > ELEMENT_ID_MAX) {
      throw invalidArgument(`${path}.id`, `must be a string of 1 to ${ELEMENT_ID_MAX} characters`, 'element-id');
    }
    if (ids.has(id)) throw invalidArgument(`${path}.id`, 'must be unique within the scene', 'unique');
    ids.add(id);
  });
  const json = JSON.stringify(raw);
  if (Buffer.byteLength(json, 'utf8') > SCENE_MAX_BYTES) {
    throw invalidArgument(fieldPath, `must be at most ${SCENE_MAX_BYTES} bytes as JSON`, 'max-bytes');
  }
  // The jsonb column cannot hold U+0000, and a lone surrogate is not Unicode: refused, not stored altered.
  const misfit = columnMisfit(modelSpecs('Whiteboard').initialSnapshot as ColumnSpec, json);
  if (misfit) throw invalidArgument(fieldPath, misfit, 'storable', misfitFactory(misfit));
  return { elements: elements as Record<string, unknown>[], version: version as number };
}

/** The Y.Doc state (one Yjs update) a board created from `scene` starts with. */
export function sceneToYjsUpdate(scene: Scene): Uint8Array {
  const doc = new Y.Doc();
  try {
    doc.transact(() => {
      const elements = doc.getArray<Y.Map<unknown>>('elements');
      elements.push(scene.elements.map((el) => new Y.Map<unknown>(Object.entries(el))));
      doc.getMap('scene').set('version', scene.version);
    });
    return Y.encodeStateAsUpdate(doc);
  } finally {
    doc.destroy();
  }
}

/** The scene a Y.Doc holds now, in the mapping above (tests and tools read boards with it). */
export function yjsToScene(doc: Y.Doc): Scene {
  const elements = doc.getArray<Y.Map<unknown>>('elements').toArray().map((m) => m.toJSON() as Record<string, unknown>);
  const version = doc.getMap('scene').get('version');
  return { elements, version: typeof version === 'number' ? version : 0 };
}
