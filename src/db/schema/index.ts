export * from "./api-keys.ts";
export * from "./projects.ts";
export * from "./quota-counters.ts";
export * from "./users.ts";
