/**
 * Recording webhook events, outbox style: inside the transaction of the change that caused the
 * event, one delivery row per target (each subscribed enabled endpoint of the account, and the
 * resource's callback URL) and its first delivery job are written. A rolled-back change sends
 * nothing; a committed one is delivered at least once.
 */
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/client.ts";
import type { AutoeditRow } from "../../db/repositories/autoedits.ts";
import { type GenerationRow, outputsOf } from "../../db/repositories/generations.ts";
import type { RenderRow } from "../../db/repositories/renders.ts";
import type { TranscriptionRow } from "../../db/repositories/transcriptions.ts";
import type { UploadRow } from "../../db/repositories/uploads.ts";
import {
  countDeliveriesAhead,
  findWebhookCallback,
  insertWebhookDeliveries,
  type NewWebhookDelivery,
  subscribedWebhookEndpoints,
  type WebhookDeliveryRow,
} from "../../db/repositories/webhooks.ts";
import type { WebhookPayload } from "../../db/schema/webhooks.ts";
import { newId } from "../../ids.ts";
import { JOBS } from "../../queue/catalog.ts";
import type { Enqueue } from "../../queue/enqueue.ts";

/** A resource as the API returns it, the `data` of an event's payload. */
type Presented = Record<string, unknown>;

/**
 * How each resource appears in an event's payload: as the API returns it (file URLs freshly
 * signed). Given by the composition root, which owns the presenters.
 */
export interface EventPresenters {
  render(row: RenderRow): Promise<Presented>;
  /** A generation with its output uploads (read inside the event's transaction). */
  generation(row: GenerationRow, outputs: UploadRow[]): Promise<Presented>;
  transcription(row: TranscriptionRow): Presented;
  upload(row: UploadRow): Promise<Presented>;
  autoedit(row: AutoeditRow): Presented;
}

/** What recording events needs: the job sender, the clock, and the payloads' presenters. */
export interface WebhookEventsDeps {
  enqueue: Enqueue;
  clock: Clock;
  present: EventPresenters;
}

/** One event to record. */
interface WebhookEvent {
  userId: string;
  type: string;
  /**
   * The resource as the API returns it; called only when someone receives the event (presenting
   * signs file URLs and may read the database).
   */
  present: () => Promise<Record<string, unknown>>;
  /** The resource whose callback URL (if it was started with one) also gets the event. */
  resourceId?: string;
}

/** Records the events of state changes, each inside the caller's transaction. */
export interface WebhookEvents {
  /** `render.succeeded` / `render.failed` / `render.cancelled` for a render that just ended. */
  renderEnded(tx: Db, render: RenderRow): Promise<void>;
  /** `generation.succeeded` / `generation.failed` for a generation that just ended (cancelled: none). */
  generationEnded(tx: Db, generation: GenerationRow): Promise<void>;
  /** `transcription.succeeded` / `transcription.failed` for a transcription that just ended. */
  transcriptionEnded(tx: Db, transcription: TranscriptionRow): Promise<void>;
  /** `upload.created`, one event per upload. */
  uploadsCreated(tx: Db, uploads: UploadRow[]): Promise<void>;
  /** `autoedit.succeeded` / `autoedit.failed` for an auto-edit that just ended. */
  autoeditEnded(tx: Db, autoedit: AutoeditRow): Promise<void>;
}

/**
 * Sends the job of the next try of a delivery inside `tx`, fenced by the row's current `seq`.
 * Fair across accounts and targets: the job's priority is minus the pending deliveries queued
 * before it for its account plus those for its target, so another account's first delivery runs
 * before this account's backlog, and one endpoint's backlog (a slow endpoint) sinks below the
 * account's other endpoints instead of holding every worker slot.
 * @param startAfterSeconds - delay before the try, seconds (default: at once).
 * @throws whatever the queue throws (the caller's transaction then rolls back).
 */
export async function enqueueDelivery(
  enqueue: Enqueue,
  tx: Db,
  row: Pick<WebhookDeliveryRow, "id" | "seq" | "userId" | "endpointId" | "url">,
  startAfterSeconds?: number,
): Promise<void> {
  const ahead = await countDeliveriesAhead(tx, row);
  await enqueue(
    {
      job: JOBS.webhookDelivery,
      data: { v: 1, deliveryId: row.id, seq: row.seq },
      priority: -(ahead.account + ahead.target),
      ...(startAfterSeconds !== undefined ? { startAfterSeconds } : {}),
    },
    tx,
  );
}

/**
 * Writes delivery rows and sends the first delivery job of each, inside `tx`.
 * @returns the rows written.
 * @throws database or queue errors (the caller's transaction then rolls back).
 */
export async function queueDeliveries(
  enqueue: Enqueue,
  tx: Db,
  rows: NewWebhookDelivery[],
): Promise<WebhookDeliveryRow[]> {
  const inserted = await insertWebhookDeliveries(tx, rows);
  for (const row of inserted) await enqueueDelivery(enqueue, tx, row);
  return inserted;
}

/**
 * The event recorder (see the module doc).
 * @param deps.enqueue - sends delivery jobs inside the caller's transaction.
 * @param deps.present - turns the changed resource into the payload's `data`.
 */
export function createWebhookEvents(deps: WebhookEventsDeps): WebhookEvents {
  /** Records an event for its account's subscribed endpoints and the resource's callback URL. */
  const record = async (tx: Db, event: WebhookEvent): Promise<void> => {
    const endpoints = await subscribedWebhookEndpoints(tx, event.userId, event.type);
    const callbackUrl = event.resourceId ? await findWebhookCallback(tx, event.resourceId) : null;
    if (endpoints.length === 0 && !callbackUrl) return;
    const now = deps.clock.now();
    const payload: WebhookPayload = {
      type: event.type,
      timestamp: now.toISOString(),
      data: await event.present(),
    };
    const messageId = newId("evt", now.getTime());
    const base = {
      userId: event.userId,
      messageId,
      eventType: event.type,
      payload,
      nextTryAt: now,
      createdAt: now,
    };
    const rows: NewWebhookDelivery[] = endpoints.map((e) => ({
      ...base,
      id: newId("dlv"),
      endpointId: e.id,
    }));
    if (callbackUrl) rows.push({ ...base, id: newId("dlv"), endpointId: null, url: callbackUrl });
    await queueDeliveries(deps.enqueue, tx, rows);
  };
  return {
    async renderEnded(tx, render) {
      if (render.status !== "succeeded" && render.status !== "failed" && render.status !== "cancelled")
        return;
      await record(tx, {
        userId: render.userId,
        type: `render.${render.status}`,
        present: () => deps.present.render(render),
        resourceId: render.id,
      });
    },
    async generationEnded(tx, generation) {
      if (generation.status !== "succeeded" && generation.status !== "failed") return;
      await record(tx, {
        userId: generation.userId,
        type: `generation.${generation.status}`,
        present: async () =>
          deps.present.generation(
            generation,
            (await outputsOf(tx, [generation.id])).get(generation.id) ?? [],
          ),
        resourceId: generation.id,
      });
    },
    async transcriptionEnded(tx, transcription) {
      if (transcription.status !== "succeeded" && transcription.status !== "failed") return;
      await record(tx, {
        userId: transcription.userId,
        type: `transcription.${transcription.status}`,
        present: async () => deps.present.transcription(transcription),
        resourceId: transcription.id,
      });
    },
    async autoeditEnded(tx, autoedit) {
      if (autoedit.status !== "succeeded" && autoedit.status !== "failed") return;
      await record(tx, {
        userId: autoedit.userId,
        type: `autoedit.${autoedit.status}`,
        present: async () => deps.present.autoedit(autoedit),
        resourceId: autoedit.id,
      });
    },
    async uploadsCreated(tx, uploads) {
      for (const upload of uploads) {
        await record(tx, {
          userId: upload.userId,
          type: "upload.created",
          present: () => deps.present.upload(upload),
        });
      }
    },
  };
}
