import pino from "pino";
import { describe, expect, it } from "vitest";
import {
  type AttemptContext,
  type AttemptEnd,
  type AttemptErrorJson,
  type AttemptPipeline,
  type AttemptProgress,
  type ResourceLifecycle,
  RetryableAttemptError,
  runAttempt,
} from "./attempt-runner.ts";
import { installUnhandledRejectionGuard } from "./job-scope.ts";

/** A fake resource: a "thumbnail" row with the generation-like statuses, kept in memory. */
interface ThumbRow {
  id: string;
  status: "queued" | "running" | "cancelling" | "succeeded" | "failed" | "cancelled";
  attempt: number;
  progress: number;
  heartbeats: number;
  output: string | null;
  error: AttemptErrorJson | null;
  warnings: string[];
  discarded: string[];
}

class FakeTable implements ResourceLifecycle<ThumbRow, string, string> {
  rows = new Map<string, ThumbRow>();
  progressWrites: number[] = [];

  add(id: string, patch: Partial<ThumbRow> = {}): ThumbRow {
    const row: ThumbRow = {
      id,
      status: "queued",
      attempt: 0,
      progress: 0,
      heartbeats: 0,
      output: null,
      error: null,
      warnings: [],
      discarded: [],
      ...patch,
    };
    this.rows.set(id, row);
    return row;
  }
  async claim(id: string) {
    const r = this.rows.get(id);
    if (!r || !["queued", "running"].includes(r.status)) return null;
    r.attempt += 1;
    r.status = "running";
    return { ...r };
  }
  async readControl(id: string, attempt: number) {
    const r = this.rows.get(id);
    if (!r || r.attempt !== attempt) return "superseded" as const;
    if (r.status === "cancelling") return "cancelling" as const;
    return r.status === "running" ? ("ok" as const) : ("superseded" as const);
  }
  async heartbeat(id: string, attempt: number, p: AttemptProgress) {
    const control = await this.readControl(id, attempt);
    if (control !== "ok") return control;
    const r = this.rows.get(id) as ThumbRow;
    r.heartbeats += 1;
    r.progress = p.ratio;
    this.progressWrites.push(p.ratio);
    return control;
  }
  async finish(id: string, attempt: number, end: AttemptEnd<string, string>, p: AttemptProgress) {
    const r = this.rows.get(id);
    if (!r || r.attempt !== attempt) return false;
    if (end.status === "cancelled" ? r.status !== "cancelling" : r.status !== "running") return false;
    r.status = end.status;
    r.progress = p.ratio;
    if (end.status === "succeeded") r.output = end.output;
    if (end.status === "failed") r.error = end.error;
    if (end.status !== "cancelled") r.warnings = end.warnings;
    return true;
  }
  async abandon(id: string, error: AttemptErrorJson | null) {
    const r = this.rows.get(id);
    if (!r) return false;
    if (r.status === "cancelling") r.status = "cancelled";
    else if (error && ["queued", "running"].includes(r.status)) Object.assign(r, { status: "failed", error });
    else return false;
    return true;
  }
  async discardOutput(id: string, output: string) {
    this.rows.get(id)?.discarded.push(output);
  }
  initialProgress = (row: ThumbRow) => row.progress;
}

class ThumbError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  constructor(code: string, retryable: boolean) {
    super(code);
    this.code = code;
    this.retryable = retryable;
  }
}

const log = pino({ level: "silent" });
const describeError = (err: unknown) =>
  err instanceof ThumbError
    ? { error: { code: err.code, message: err.message, retryable: err.retryable }, retryable: err.retryable }
    : {
        error: { code: "INTERNAL", message: "unexpected", retryable: true },
        retryable: true,
        unexpected: true,
      };

function run(
  table: FakeTable,
  id: string,
  pipeline: AttemptPipeline<ThumbRow, string, string>,
  maxAttempts = 3,
) {
  return runAttempt({ lifecycle: table, pipeline, describeError, log, maxAttempts, pollMs: 5 }, id);
}

/** Resolves once `check` holds, polling the event loop. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 2));
}

/** A pipeline that waits until released or aborted. */
function gated() {
  let release!: (v: string) => void;
  const done = new Promise<string>((r) => {
    release = r;
  });
  let ctx!: AttemptContext<string>;
  const pipeline: AttemptPipeline<ThumbRow, string, string> = (_row, c) => {
    ctx = c;
    return new Promise<string>((resolve, reject) => {
      c.signal.addEventListener("abort", () => reject(c.signal.reason));
      void done.then(resolve);
    });
  };
  return { pipeline, release: (v: string) => release(v), ctx: () => ctx };
}

describe("fenced-attempt runner on a fake resource", () => {
  it("claims, heartbeats progress that never goes backwards, and succeeds with the output and warnings", async () => {
    const table = new FakeTable();
    const row = table.add("thm_1", { progress: 0.2 });
    const g = gated();
    const running = run(table, "thm_1", g.pipeline);
    await until(() => g.ctx() !== undefined);
    expect(g.ctx().attempt).toBe(1);
    g.ctx().progress(0.1); // below what an earlier attempt reached: ignored
    g.ctx().progress(0.5, { step: "encode" });
    g.ctx().warn("low light");
    await until(() => row.heartbeats >= 2);
    g.ctx().progress(7); // clamped to 1
    g.release("thumb.png");
    expect(await running).toBe("succeeded");
    expect(row).toMatchObject({
      status: "succeeded",
      output: "thumb.png",
      progress: 1,
      warnings: ["low light"],
    });
    expect(table.progressWrites[0]).toBeGreaterThanOrEqual(0.2);
    expect(table.progressWrites).toEqual([...table.progressWrites].sort((a, b) => a - b));
  });

  it("a cancel request aborts the pipeline's signal and ends the resource cancelled", async () => {
    const table = new FakeTable();
    const row = table.add("thm_2");
    const g = gated();
    const running = run(table, "thm_2", g.pipeline);
    await until(() => g.ctx() !== undefined);
    row.status = "cancelling";
    expect(await running).toBe("cancelled");
    expect(g.ctx().signal.aborted).toBe(true);
    expect(row.status).toBe("cancelled");
  });

  it("an output finished after the cancel is discarded", async () => {
    const table = new FakeTable();
    const row = table.add("thm_3");
    const outcome = await run(table, "thm_3", async () => {
      row.status = "cancelling"; // arrives while the pipeline stores its output
      return "late.png";
    });
    expect(outcome).toBe("cancelled");
    expect(row).toMatchObject({ status: "cancelled", output: null, discarded: ["late.png"] });
  });

  it("a newer attempt supersedes the running one: aborted, and it writes nothing more", async () => {
    const table = new FakeTable();
    const row = table.add("thm_4");
    const g = gated();
    const running = run(table, "thm_4", g.pipeline);
    await until(() => g.ctx() !== undefined);
    await table.claim("thm_4"); // another worker's retry
    expect(await running).toBe("superseded");
    expect(g.ctx().signal.aborted).toBe(true);
    expect(row).toMatchObject({ status: "running", attempt: 2, output: null, error: null });
  });

  it("a retryable failure is thrown for the queue to retry while attempts are left, then fails the resource", async () => {
    const table = new FakeTable();
    const row = table.add("thm_5");
    const flaky = async () => {
      throw new ThumbError("VENDOR_DOWN", true);
    };
    await expect(run(table, "thm_5", flaky, 2)).rejects.toBeInstanceOf(RetryableAttemptError);
    expect(row.status).toBe("running");
    expect(await run(table, "thm_5", flaky, 2)).toBe("failed");
    expect(row).toMatchObject({
      status: "failed",
      attempt: 2,
      error: { code: "VENDOR_DOWN", retryable: true },
    });
  });

  it("a non-retryable failure fails at once; an unexpected error is stored as INTERNAL", async () => {
    const table = new FakeTable();
    const bad = table.add("thm_6");
    expect(
      await run(table, "thm_6", async () => {
        throw new ThumbError("CONTENT_REJECTED", false);
      }),
    ).toBe("failed");
    expect(bad).toMatchObject({ status: "failed", attempt: 1, error: { code: "CONTENT_REJECTED" } });

    const crash = table.add("thm_7");
    await expect(
      run(table, "thm_7", async () => {
        throw new TypeError("bug");
      }),
    ).rejects.toMatchObject({ failure: { code: "INTERNAL" } });
    expect(crash.status).toBe("running");
  });

  it("an unhandled rejection in the pipeline's work fails that attempt, aborts it and is logged with the id", async () => {
    const lines: string[] = [];
    const capture = pino({ level: "error" }, { write: (line: string) => lines.push(line) });
    // Only the guard listens while this runs (Vitest's own listener would fail the test file).
    const others = process.listeners("unhandledRejection");
    process.removeAllListeners("unhandledRejection");
    const uninstall = installUnhandledRejectionGuard(capture, { exitOutsideJobs: false });
    try {
      const table = new FakeTable();
      const row = table.add("thm_crash");
      let aborted = false;
      const outcome = await run(
        table,
        "thm_crash",
        (_row, ctx) =>
          new Promise<string>((_resolve, reject) => {
            ctx.signal.addEventListener("abort", () => {
              aborted = true;
              reject(new Error("stopped"));
            });
            // A write callback's promise that nobody awaits, as a killed encoder's pipe gives.
            setTimeout(() => void Promise.reject(new Error("write EPIPE")), 5);
          }),
        1,
      );
      expect(outcome).toBe("failed");
      expect(aborted).toBe(true);
      expect(row).toMatchObject({ status: "failed", error: { code: "INTERNAL" } });
      const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(logged).toContainEqual(
        expect.objectContaining({
          resourceId: "thm_crash",
          msg: "unhandled rejection in a job; the job fails",
        }),
      );
    } finally {
      uninstall();
      for (const l of others) process.on("unhandledRejection", l as (r: unknown) => void);
    }
  });

  it("a pipeline failing because its fenced write found a pending cancel ends cancelled, not failed", async () => {
    const table = new FakeTable();
    const row = table.add("thm_8");
    const outcome = await run(table, "thm_8", async () => {
      row.status = "cancelling";
      throw new Error("own fenced write did not apply");
    });
    expect(outcome).toBe("cancelled");
    expect(row.error).toBeNull();
  });

  it("nothing claimable is skipped; a resource left cancelling by a dead worker is ended cancelled", async () => {
    const table = new FakeTable();
    table.add("thm_9", { status: "succeeded", attempt: 1 });
    const orphan = table.add("thm_10", { status: "cancelling", attempt: 1 });
    let ran = false;
    const pipeline = async () => {
      ran = true;
      return "x";
    };
    expect(await run(table, "thm_9", pipeline)).toBe("skipped");
    expect(await run(table, "thm_10", pipeline)).toBe("skipped");
    expect(await run(table, "thm_missing", pipeline)).toBe("skipped");
    expect(ran).toBe(false);
    expect(table.rows.get("thm_9")?.status).toBe("succeeded");
    expect(orphan.status).toBe("cancelled");
  });
});
