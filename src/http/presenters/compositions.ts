import type { Db } from "../../db/client.ts";
import type { CompositionRow } from "../../db/repositories/compositions.ts";
import { toCompositionResource } from "../../domain/composition/edit-composition.ts";
import { missingClipWarnings } from "../../domain/composition/missing-clips.ts";
import type { Composition } from "../../domain/composition/schema.ts";

/**
 * Composition row → the `Composition` resource. The resource is the domain's own composition
 * document (renders, interchange and JSON Patch work on it), so this is
 * {@link toCompositionResource}; routes present through here like every other resource.
 */
export function presentComposition(row: CompositionRow): Composition {
  return toCompositionResource(row);
}

/**
 * {@link presentComposition} with the `warnings` of its degraded clips (clips whose upload was
 * deleted), absent when there are none: what a single composition's read and writes answer.
 */
export async function presentCompositionWithWarnings(db: Db, row: CompositionRow): Promise<Composition> {
  const warnings = await missingClipWarnings(db, row);
  return { ...toCompositionResource(row), ...(warnings.length > 0 ? { warnings } : {}) };
}
