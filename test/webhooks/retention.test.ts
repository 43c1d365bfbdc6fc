// The delivery log is pruned: finished deliveries (succeeded, failed) whose last try — or
// creation, when never tried — is older than WEBHOOK_DELIVERY_RETENTION_DAYS are deleted by the
// hourly retention run; pending deliveries stay whatever their age.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  insertWebhookDeliveries,
  insertWebhookEndpoint,
  type NewWebhookDelivery,
} from "../../src/db/repositories/webhooks.ts";
import { webhookDeliveries } from "../../src/db/schema/webhooks.ts";
import { retentionTasks, runRetention } from "../../src/domain/retention/retention.ts";
import { pruneWebhookDeliveries } from "../../src/domain/webhooks/prune-deliveries.ts";
import { newWebhookSecret } from "../../src/domain/webhooks/secret.ts";
import { newId } from "../../src/ids.ts";
import { createLogger } from "../../src/logger.ts";
import { fakeClock, startTestApp, type TestApp } from "../helpers/app.ts";

const NOW = "2026-11-24T12:00:00.000Z";
const clock = fakeClock(NOW);
let t: TestApp;
let owner: { userId: string; key: string };

beforeAll(async () => {
  t = await startTestApp({ clock });
  owner = await t.createAccount();
});
afterAll(() => t.close());

const daysAgo = (days: number) => new Date(new Date(NOW).getTime() - days * 86_400_000);

/** Inserts one delivery to a new endpoint of the owner (or a callback when `callback`). */
async function delivery(
  label: string,
  row: Pick<NewWebhookDelivery, "status" | "createdAt" | "lastTriedAt">,
  callback = false,
) {
  const db = t.database.db;
  const endpoint = callback
    ? null
    : await insertWebhookEndpoint(db, {
        id: newId("whk"),
        userId: owner.userId,
        url: "https://example.com/hooks",
        events: ["upload.created"],
        secret: newWebhookSecret(),
      });
  const [inserted] = await insertWebhookDeliveries(db, [
    {
      id: newId("dlv"),
      userId: owner.userId,
      endpointId: endpoint?.id ?? null,
      url: callback ? "https://example.com/done" : null,
      messageId: newId("evt"),
      eventType: "webhook.test",
      payload: { type: "webhook.test", timestamp: NOW, data: { label } },
      ...row,
    },
  ]);
  return inserted?.id as string;
}

async function remaining(ids: Record<string, string>): Promise<string[]> {
  const rows = await t.database.db.select({ id: webhookDeliveries.id }).from(webhookDeliveries);
  const present = new Set(rows.map((r) => r.id));
  return Object.entries(ids)
    .filter(([, id]) => present.has(id))
    .map(([label]) => label)
    .sort();
}

describe("webhook delivery retention", () => {
  it("deletes finished deliveries last tried more than the retention ago, keeps pending and recent ones", async () => {
    const ids = {
      oldSucceeded: await delivery("oldSucceeded", {
        status: "succeeded",
        createdAt: daysAgo(40),
        lastTriedAt: daysAgo(40),
      }),
      oldFailed: await delivery("oldFailed", {
        status: "failed",
        createdAt: daysAgo(35),
        lastTriedAt: daysAgo(31),
      }),
      // Ended without a try (its endpoint was disabled): its creation counts.
      oldFailedUntried: await delivery("oldFailedUntried", { status: "failed", createdAt: daysAgo(31) }),
      oldCallback: await delivery(
        "oldCallback",
        { status: "succeeded", createdAt: daysAgo(60), lastTriedAt: daysAgo(60) },
        true,
      ),
      // Created long ago but redelivered recently: its last try counts.
      redelivered: await delivery("redelivered", {
        status: "succeeded",
        createdAt: daysAgo(90),
        lastTriedAt: daysAgo(2),
      }),
      recentFailed: await delivery("recentFailed", {
        status: "failed",
        createdAt: daysAgo(29),
        lastTriedAt: daysAgo(29),
      }),
      oldPending: await delivery("oldPending", {
        status: "pending",
        createdAt: daysAgo(50),
        lastTriedAt: daysAgo(45),
      }),
    };

    const first = await pruneWebhookDeliveries(t.database.db, clock, 30);
    expect(first.before).toEqual(daysAgo(30));
    expect(first.deleted).toBe(4);
    expect(await remaining(ids)).toEqual(["oldPending", "recentFailed", "redelivered"]);
    // Idempotent.
    expect((await pruneWebhookDeliveries(t.database.db, clock, 30)).deleted).toBe(0);

    // Two days later with a 1-day retention: the redelivered one goes too; pending stays.
    clock.set(daysAgo(-2));
    expect((await pruneWebhookDeliveries(t.database.db, clock, 1)).deleted).toBe(2);
    expect(await remaining(ids)).toEqual(["oldPending"]);
    clock.set(NOW);
  });

  it("the retention run prunes deliveries with WEBHOOK_DELIVERY_RETENTION_DAYS, even after another task fails", async () => {
    const old = await delivery("old", {
      status: "succeeded",
      createdAt: daysAgo(8),
      lastTriedAt: daysAgo(8),
    });
    const kept = await delivery("kept", {
      status: "succeeded",
      createdAt: daysAgo(6),
      lastTriedAt: daysAgo(6),
    });
    const failing = {
      what: "a broken kind",
      prune: () => Promise.reject(new Error("boom")),
    };
    const tasks = retentionTasks(t.database.db, clock, { quotaKeepDays: 7, webhookDeliveryRetentionDays: 7 });
    expect(tasks.map((task) => task.what)).toContain("finished webhook deliveries");
    expect(await runRetention([failing, ...tasks], createLogger("silent"))).toBe(1);
    const left = await t.database.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.userId, owner.userId));
    const leftIds = left.map((r) => r.id);
    expect(leftIds).toContain(kept);
    expect(leftIds).not.toContain(old);
  });
});
