import path from "node:path";
import type { GenerationConfig } from "../../../config.ts";
import { createFalProvider } from "./fal.ts";
import { createOfflineProvider } from "./offline.ts";
import type { ProviderSet } from "./types.ts";

/**
 * The providers this process can run: offline always (scratch under
 * `<workRoot>/offline-generations`), fal.ai when `FAL_KEY` is set.
 */
export function createProviders(config: GenerationConfig, workRoot: string): ProviderSet {
  return {
    offline: createOfflineProvider(path.join(workRoot, "offline-generations")),
    ...(config.falKey
      ? { fal: createFalProvider({ apiKey: config.falKey, queueUrl: config.falQueueUrl }) }
      : {}),
  };
}
