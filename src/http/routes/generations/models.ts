import type { GenerationConfig } from "../../../config.ts";
import { listModels } from "../../../domain/generation/models.ts";
import { responses } from "../../schemas/common.ts";
import { ModelCatalog } from "../../schemas/generation.ts";
import type { KeyApp } from "../../types.ts";

/** `GET /api/v1/generate/models`: the generation models and which of them this server runs. */
export function registerGenerationModelsRoute(app: KeyApp, deps: { generation: GenerationConfig }): void {
  app.get(
    "/api/v1/generate/models",
    {
      schema: {
        operationId: "listGenerationModels",
        summary: "List the image and video generation models",
        description:
          "`default` marks the caller's selected model (set with `PATCH /api/v1/me/settings`); `available` marks what this server runs: the fal.ai models when `FAL_KEY` is set, else the offline placeholders.",
        tags: ["Generation"],
        response: responses({ 200: ModelCatalog }),
      },
    },
    async (request) => {
      const auth = request.auth;
      return listModels(deps.generation, auth.user.imageModel);
    },
  );
}
