import { describe, expect, it } from "vitest";
import { firstStartBanner } from "./first-start-banner.ts";

const owner = {
  secret: "crk_secret",
  setupUrl: "http://127.0.0.1:3000/console/setup?token=crp_x",
  email: "owner@localhost",
  publicUrl: "http://127.0.0.1:3000",
};

describe("the first-start banner", () => {
  it("says to stop the server before the CLI resets the password on the embedded database", () => {
    const text = firstStartBanner({ ...owner, embedded: true });
    expect(text).toContain("crk_secret");
    expect(text).toContain(
      "A new link later: stop the server (its embedded database serves one process), then npm run cli -- users reset-password owner@localhost",
    );
  });

  it("gives the reset command alone on PostgreSQL, where the CLI runs beside the server", () => {
    const text = firstStartBanner({ ...owner, embedded: false });
    expect(text).toContain("A new link later: npm run cli -- users reset-password owner@localhost");
    expect(text).not.toContain("stop the server");
  });
});
