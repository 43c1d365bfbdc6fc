/** Key scopes: `write` implies `read`. */
export const SCOPES = ["read", "write"] as const;
/** One key scope. */
export type Scope = (typeof SCOPES)[number];

/** True when a key with `granted` scopes may call a route that needs `needed`. */
export function hasScope(granted: readonly Scope[], needed: Scope): boolean {
  return granted.includes(needed) || (needed === "read" && granted.includes("write"));
}

/** Parses a CLI/HTTP scope list like `"read,write"`; `write` adds `read`. Throws on unknown names. */
export function parseScopes(list: string): Scope[] {
  const names = list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = names.filter((n) => !(SCOPES as readonly string[]).includes(n));
  if (bad.length > 0 || names.length === 0) {
    throw new Error(`Unknown scope list "${list}": use "read" or "read,write"`);
  }
  const set = new Set(names as Scope[]);
  if (set.has("write")) set.add("read");
  return SCOPES.filter((s) => set.has(s));
}
