import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { AssistantModelInfo } from "../../db/schema/assistant.ts";
import { httpFetch } from "../../net/http-client.ts";
import { createOfflineModel, OFFLINE_MODEL_ID } from "./offline-model.ts";

/** Where the assistant's model comes from (the `ASSISTANT_*` settings). */
export interface ModelSettings {
  /** `offline`, `openai:<model>`, `anthropic:<model>` or `openai-compatible:<model>`. */
  model: string;
  baseUrl: string | undefined;
  apiKey: string | undefined;
}

/** Provider and model id named by an `ASSISTANT_MODEL` value. */
export function modelInfo(model: string): AssistantModelInfo {
  if (model === "offline") return { provider: "offline", id: OFFLINE_MODEL_ID, offline: true };
  const at = model.indexOf(":");
  return { provider: model.slice(0, at), id: model.slice(at + 1), offline: false };
}

/**
 * The AI SDK language model for a session's model: the offline command model, or a provider
 * client (OpenAI Responses, Anthropic Messages, or any OpenAI-compatible chat completions
 * server such as vLLM, Ollama, llama.cpp or LM Studio at `baseUrl`). Without `apiKey` the
 * OpenAI and Anthropic clients read OPENAI_API_KEY / ANTHROPIC_API_KEY themselves. Every
 * provider calls out through the process's HTTP client (`httpFetch`).
 */
export function createLanguageModel(info: AssistantModelInfo, settings: ModelSettings): LanguageModelV4 {
  const key = settings.apiKey ? { apiKey: settings.apiKey } : {};
  const base = settings.baseUrl ? { baseURL: settings.baseUrl } : {};
  const fetch = httpFetch;
  switch (info.provider) {
    case "offline":
      return createOfflineModel();
    case "openai":
      return createOpenAI({ ...key, ...base, fetch })(info.id);
    case "anthropic":
      return createAnthropic({ ...key, ...base, fetch })(info.id);
    case "openai-compatible":
      return createOpenAICompatible({
        name: "openai-compatible",
        baseURL: settings.baseUrl ?? "http://127.0.0.1:8000/v1",
        ...key,
        includeUsage: true,
        fetch,
      })(info.id);
    default:
      throw new Error(`Unknown assistant model provider ${info.provider}`);
  }
}
