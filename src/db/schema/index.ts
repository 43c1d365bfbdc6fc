export * from "./api-keys.ts";
export * from "./assistant.ts";
export * from "./compositions.ts";
export * from "./projects.ts";
export * from "./quota-counters.ts";
export * from "./renders.ts";
export * from "./uploads.ts";
export * from "./users.ts";
