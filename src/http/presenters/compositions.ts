import type { CompositionRow } from "../../db/repositories/compositions.ts";
import { toCompositionResource } from "../../domain/composition/edit-composition.ts";
import type { Composition } from "../../domain/composition/schema.ts";

/**
 * Composition row → the `Composition` resource. The resource is the domain's own composition
 * document (renders, interchange and JSON Patch work on it), so this is
 * {@link toCompositionResource}; routes present through here like every other resource.
 */
export function presentComposition(row: CompositionRow): Composition {
  return toCompositionResource(row);
}
