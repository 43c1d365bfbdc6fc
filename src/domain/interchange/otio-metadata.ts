import { CUTROOM_NS } from "./common.ts";
import type { ImportWarning } from "./otio-items.ts";

/**
 * Other applications' OTIO `metadata` (Premiere's `fcp_xml`, Resolve's `Resolve_OTIO`…) kept
 * through Cutroom: an import stores it under `metadata.otio` of the composition, track, clip
 * or marker (a clip's media reference's under `metadata.otioMedia`), an export writes it back
 * beside Cutroom's own `metadata.cutroom`.
 */
export const OTIO_NS = "otio";
/** Where a clip keeps the `metadata` of its OTIO media reference. */
export const OTIO_MEDIA_NS = "otioMedia";

/** Largest metadata kept per item, bytes of JSON. */
export const METADATA_ITEM_MAX_BYTES = 64 * 1024;
/**
 * Largest metadata kept per imported timeline, bytes of JSON: half the default request body
 * limit, so that the composition can still be sent back whole (`PUT`).
 */
export const METADATA_TOTAL_MAX_BYTES = 1024 * 1024;

type Metadata = Record<string, unknown>;

/** An OTIO item's metadata without Cutroom's own namespace, or undefined when nothing is left. */
function foreign(metadata: Metadata | null | undefined): Metadata | undefined {
  if (!metadata) return undefined;
  const { [CUTROOM_NS]: _ours, ...rest } = metadata;
  return Object.keys(rest).length ? rest : undefined;
}

/**
 * A keeper of other applications' metadata for one import: returns what an item's metadata
 * carries (without `cutroom`), or undefined, with a warning when it is larger than
 * {@link METADATA_ITEM_MAX_BYTES} or would pass {@link METADATA_TOTAL_MAX_BYTES} in all.
 */
export function metadataKeeper(warnings: ImportWarning[]) {
  let total = 0;
  return (metadata: Metadata | null | undefined, itemPath: string): Metadata | undefined => {
    const kept = foreign(metadata);
    if (!kept) return undefined;
    const bytes = Buffer.byteLength(JSON.stringify(kept));
    const why =
      bytes > METADATA_ITEM_MAX_BYTES
        ? `Cutroom keeps up to ${METADATA_ITEM_MAX_BYTES / 1024} KiB per item`
        : total + bytes > METADATA_TOTAL_MAX_BYTES
          ? `Cutroom keeps up to ${METADATA_TOTAL_MAX_BYTES / 1024 / 1024} MiB per timeline`
          : null;
    if (why) {
      warnings.push({
        path: `${itemPath}/metadata`,
        message: `metadata of ${bytes} bytes not carried: ${why}`,
      });
      return undefined;
    }
    total += bytes;
    return kept;
  };
}

/**
 * A Cutroom item's `metadata` (`own`, restored from an export's `cutroom` namespace) with other
 * applications' metadata added under `otio` / `otioMedia`; undefined when all are empty.
 */
export function withForeign(
  own: unknown,
  kept: Partial<Record<typeof OTIO_NS | typeof OTIO_MEDIA_NS, Metadata | undefined>>,
): Metadata | undefined {
  const out: Metadata = own && typeof own === "object" && !Array.isArray(own) ? { ...(own as Metadata) } : {};
  for (const [key, value] of Object.entries(kept)) if (value) out[key] = value;
  return Object.keys(out).length ? out : undefined;
}

/**
 * Splits a Cutroom item's `metadata` for an export: `otio` (other applications' metadata,
 * written back at the top of the OTIO item's metadata), `otioMedia` (its media reference's) and
 * the rest (Cutroom's own, kept under `metadata.cutroom.metadata`).
 */
export function splitForExport(metadata: Metadata | undefined): {
  otio: Metadata;
  otioMedia: Metadata;
  own: Metadata | undefined;
} {
  const { [OTIO_NS]: otio, [OTIO_MEDIA_NS]: otioMedia, ...own } = metadata ?? {};
  const obj = (v: unknown) => (v && typeof v === "object" && !Array.isArray(v) ? (v as Metadata) : {});
  return { otio: obj(otio), otioMedia: obj(otioMedia), own: Object.keys(own).length ? own : undefined };
}
