/**
 * Every route that needs the `write` scope (DESIGN §3). The scope test checks this table
 * against the routes the app registered with `config.scope = "write"`, so a new write
 * route fails the suite until it is listed here — and then gets its 403 test for free.
 */
export const WRITE_ROUTES: { method: "POST" | "PUT" | "PATCH" | "DELETE"; url: string }[] = [
  { method: "POST", url: "/api/v1/projects" },
];
