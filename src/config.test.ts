import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";
import { DEFAULT_RENDER_LIMITS } from "./domain/composition/limits.ts";

describe("render limit settings", () => {
  it("default to the documented limits and read minutes as seconds", () => {
    expect(loadConfig({}, "/tmp").renderLimits).toEqual(DEFAULT_RENDER_LIMITS);
    const limits = loadConfig(
      { RENDER_MINUTES_STANDARD_DAILY: "2", RENDER_MAX_ACTIVE_PER_ACCOUNT: "1", COMPOSITION_MAX_CLIPS: "10" },
      "/tmp",
    ).renderLimits;
    expect(limits).toMatchObject({
      dailyRenderSec: { standard: 120, upgraded: 72_000 },
      maxActivePerAccount: 1,
      maxClips: 10,
    });
  });

  it("refuse values out of range, one line per variable", () => {
    try {
      loadConfig(
        { RENDER_MAX_FPS: "120", RENDER_MAX_WIDTH: "8192", RENDER_MAX_ACTIVE_PER_ACCOUNT: "0" },
        "/tmp",
      );
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems.map((p) => p.split("=")[0])).toEqual([
        "RENDER_MAX_WIDTH",
        "RENDER_MAX_FPS",
        "RENDER_MAX_ACTIVE_PER_ACCOUNT",
      ]);
    }
  });
});

describe("webhook settings", () => {
  it("default to https public targets, the day-long schedule and 5 failures", () => {
    expect(loadConfig({}, "/tmp").webhooks).toEqual({
      allowPrivate: false,
      retryScheduleSec: [5, 300, 1800, 7200, 18_000, 36_000, 36_000],
      disableAfterFailures: 5,
      timeoutMs: 10_000,
      deliveryRetentionDays: 30,
    });
    const custom = loadConfig(
      {
        WEBHOOK_ALLOW_PRIVATE: "true",
        WEBHOOK_RETRY_SCHEDULE: "0, 1,2",
        WEBHOOK_DISABLE_AFTER_FAILURES: "2",
        WEBHOOK_DELIVERY_RETENTION_DAYS: "7",
      },
      "/tmp",
    ).webhooks;
    expect(custom).toMatchObject({
      allowPrivate: true,
      retryScheduleSec: [0, 1, 2],
      disableAfterFailures: 2,
      deliveryRetentionDays: 7,
    });
  });

  it("refuse a schedule that is not whole seconds", () => {
    for (const bad of ["5,x", "1.5", "-1", "5,,6"]) {
      expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: bad }, "/tmp")).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    }
  });
});
