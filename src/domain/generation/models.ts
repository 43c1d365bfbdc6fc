import type { GenerationConfig } from "../../config.ts";

/** What a generation makes. */
export type GenerationKind = "image" | "video";

/** Who runs a model: fal.ai's queue, or the local offline placeholder. */
export type ProviderName = "fal" | "offline";

/** Video options a model may not support; absent = every value allowed. */
export interface VideoCapabilities {
  aspectRatios?: readonly string[];
  durations?: readonly string[];
  resolutions?: readonly string[];
  audio?: boolean;
}

/** One model of the catalog. */
export interface ModelInfo {
  /** Vendor model id, e.g. `fal-ai/flux/schnell`; `offline/…` for the placeholder. */
  id: string;
  name: string;
  kind: GenerationKind;
  /** `high` (best quality), `fast` (cheaper, quicker) or `offline` (placeholder, not AI). */
  tier: "high" | "fast" | "offline";
  provider: ProviderName;
  /** Longest side of an input image the model accepts, pixels (video models). */
  maxInputSide?: number;
  video?: VideoCapabilities;
}

/** The model as a generation records it (`Generation.model`). */
export interface GenerationModel {
  id: string;
  provider: ProviderName;
  offline: boolean;
}

/** The selectable image models; the first is the default. */
export const IMAGE_MODELS: readonly ModelInfo[] = [
  { id: "fal-ai/flux-pro/v1.1", name: "FLUX1.1 [pro]", kind: "image", tier: "high", provider: "fal" },
  { id: "fal-ai/flux/schnell", name: "FLUX.1 [schnell]", kind: "image", tier: "fast", provider: "fal" },
];

/** Id of the image model used when the account has no preference. */
export const DEFAULT_IMAGE_MODEL = "fal-ai/flux-pro/v1.1";

/** Ids accepted as an account's image-model preference. */
export const IMAGE_MODEL_IDS: readonly string[] = IMAGE_MODELS.map((m) => m.id);

/** The offline placeholder models: honest stand-ins, never presented as AI. */
export const OFFLINE_IMAGE_MODEL: ModelInfo = {
  id: "offline/placeholder-image",
  name: "Offline placeholder image (not AI)",
  kind: "image",
  tier: "offline",
  provider: "offline",
};
/** The offline still-to-video model: a Ken Burns move over the still. */
export const OFFLINE_VIDEO_MODEL: ModelInfo = {
  id: "offline/ken-burns-video",
  name: "Offline Ken Burns move over the still (not AI)",
  kind: "video",
  tier: "offline",
  provider: "offline",
};

/** Google Veo 3 on fal: no 1:1, 4–8 s, 720p/1080p (fal's image-to-video schema). */
const VEO_CAPABILITIES: VideoCapabilities = {
  aspectRatios: ["auto", "16:9", "9:16"],
  durations: ["4s", "6s", "8s"],
  resolutions: ["720p", "1080p"],
  audio: true,
};

/** The fal video model `FAL_VIDEO_MODEL` names, with what it can do. */
export function falVideoModel(config: Pick<GenerationConfig, "falVideoModel">): ModelInfo {
  const id = config.falVideoModel;
  const isVeo = /(^|\/)veo\d/.test(id);
  return {
    id,
    name: isVeo ? "Veo 3 Fast (image to video)" : id,
    kind: "video",
    tier: "high",
    provider: "fal",
    maxInputSide: 1920,
    ...(isVeo ? { video: VEO_CAPABILITIES } : {}),
  };
}

/**
 * The provider generations run on: `GENERATION_PROVIDER` when it is `fal` or `offline`,
 * else (`auto`) fal.ai when `FAL_KEY` is set and offline otherwise.
 */
export function activeProvider(config: Pick<GenerationConfig, "provider" | "falKey">): ProviderName {
  if (config.provider === "auto") return config.falKey ? "fal" : "offline";
  return config.provider;
}

/** The account's preferred image model id, or the default when it has none (or an unknown one). */
export function effectiveImageModelId(preference: string | null | undefined): string {
  return preference && IMAGE_MODEL_IDS.includes(preference) ? preference : DEFAULT_IMAGE_MODEL;
}

/**
 * The model a new generation runs on: the account's image model (or the video model) on fal,
 * the offline placeholder otherwise.
 */
export function modelFor(
  config: GenerationConfig,
  kind: GenerationKind,
  preference: string | null | undefined,
): ModelInfo {
  if (activeProvider(config) === "offline")
    return kind === "image" ? OFFLINE_IMAGE_MODEL : OFFLINE_VIDEO_MODEL;
  if (kind === "video") return falVideoModel(config);
  const id = effectiveImageModelId(preference);
  return IMAGE_MODELS.find((m) => m.id === id) as ModelInfo;
}

/** A catalog entry as `GET /api/v1/generate/models` lists it. */
export interface ListedModel {
  id: string;
  name: string;
  tier: ModelInfo["tier"];
  provider: ProviderName;
  /** Whether generations can run on it with this server's configuration. */
  available: boolean;
  /**
   * The model this server runs the caller's generations of this kind on: their selected fal
   * model (their preference, else the catalog default) when fal is configured, else the offline
   * placeholder. Never a model the server cannot run (`available: false`).
   */
  default: boolean;
}

/**
 * The catalog for one caller: the selectable image models, the video model, and the offline
 * placeholders; `available` says which of them this server's active provider runs, and
 * `default` marks, per kind, the one model a generation of the caller runs on (always available).
 */
export function listModels(
  config: GenerationConfig,
  preference: string | null | undefined,
): { image: ListedModel[]; video: ListedModel[] } {
  const active = activeProvider(config);
  const chosen = effectiveImageModelId(preference);
  const list = (m: ModelInfo, selected: boolean): ListedModel => ({
    id: m.id,
    name: m.name,
    tier: m.tier,
    provider: m.provider,
    available: m.provider === active,
    default: selected && m.provider === active,
  });
  return {
    image: [...IMAGE_MODELS.map((m) => list(m, m.id === chosen)), list(OFFLINE_IMAGE_MODEL, true)],
    video: [list(falVideoModel(config), true), list(OFFLINE_VIDEO_MODEL, true)],
  };
}
