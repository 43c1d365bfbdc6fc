/**
 * Sending a pg-boss flow from the domain: jobs that depend on other jobs of the same flow
 * (a job becomes available once every job it depends on has completed).
 */
import { createHash } from "node:crypto";
import type { PgBoss } from "pg-boss";
import type { JobToSend } from "./enqueue.ts";
import type { JobDefinition } from "./registry.ts";

/** One job of a flow: a {@link JobToSend} with its id, a reference and its dependencies. */
export interface FlowJobToSend<P extends object> extends Omit<JobToSend<P>, "startAfterSeconds"> {
  /** Name of the job within the flow (what `dependsOn` refers to). */
  ref: string;
  /** The pg-boss job id (a UUID, see {@link jobIdFor}). */
  id: string;
  /** Refs of the jobs of this flow that must complete first. */
  dependsOn?: string[];
}

/** Sending flows, and whether a job of one was sent. */
export interface FlowQueue {
  /**
   * Sends the jobs and their dependencies in one transaction of the queue's own: all or none
   * (a single job, e.g. the join of a render whose parts were all copied, is sent alone).
   * (pg-boss writes a flow as several statements, which a transaction on the application's
   * PGlite connection cannot run; a caller that must not lose the flow sends it again when it
   * finds it missing, see {@link FlowQueue.has}.)
   * @throws whatever the queue's database throws, e.g. when a job id is taken.
   */
  send(jobs: FlowJobToSend<object>[]): Promise<void>;
  /** Whether the queue holds job `id` of kind `job`. */
  has(job: JobDefinition<object>, id: string): Promise<boolean>;
  /**
   * Cancels the jobs `ids` of kind `job` that have not ended (pg-boss `cancel`): a queued one is
   * never fetched, a blocked one (waiting on its flow) never becomes available. A running one
   * goes on (pg-boss does not stop handlers), so callers cancel only jobs nobody runs. Ids that
   * do not exist or have ended are skipped.
   * @throws whatever the queue's database throws.
   */
  cancel(job: JobDefinition<object>, ids: string[]): Promise<void>;
}

/**
 * A stable job id (UUID format) for `key`: a flow sent again for the same keys has the same
 * job ids, so the caller can tell whether it was sent.
 */
export function jobIdFor(key: string): string {
  const h = createHash("sha256").update(key).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The {@link FlowQueue} of a pg-boss instance (`boss.flow`, `boss.getJobById`, `boss.cancel`). */
export function createFlowQueue(boss: PgBoss): FlowQueue {
  return {
    async send(jobs) {
      const options = (j: FlowJobToSend<object>) => ({
        id: j.id,
        ...(j.expireInSeconds !== undefined ? { expireInSeconds: j.expireInSeconds } : {}),
        ...(j.priority ? { priority: j.priority } : {}),
      });
      // pg-boss flows hold two jobs at least: a flow of one is a plain send.
      const [only] = jobs;
      if (jobs.length === 1 && only) {
        await boss.send(only.job.name, only.data, options(only));
        return;
      }
      await boss.flow(
        jobs.map((j) => ({
          ref: j.ref,
          name: j.job.name,
          data: j.data,
          options: options(j),
          ...(j.dependsOn?.length ? { dependsOn: j.dependsOn } : {}),
        })),
      );
    },
    async has(job, id) {
      return (await boss.getJobById(job.name, id)) !== null;
    },
    async cancel(job, ids) {
      if (ids.length > 0) await boss.cancel(job.name, ids);
    },
  };
}
