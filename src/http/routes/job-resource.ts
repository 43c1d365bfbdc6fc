import type { FastifyRequest } from "fastify";
import { type TProperties, type TSchema, Type } from "typebox";
import { notFound } from "../../errors.ts";
import { pageWindow, toPage } from "../pagination.ts";
import { AUTH_ERRORS, Page, PageQuery, responses } from "../schemas/common.ts";
import type { KeyApp } from "../types.ts";

/** What {@link registerJobResourceRoutes} registers for one job resource (renders, generations, transcriptions). */
export interface JobResource<Row extends { id: string }> {
  /** The collection's path, e.g. `/api/v1/transcriptions`; one job is `<path>/:<idParam>`. */
  path: string;
  /** The path parameter naming one job: `id`, or `jobId` for renders. */
  idParam: "id" | "jobId";
  /** The resource's name in a 404 message (`Transcription trn_…`). */
  noun: string;
  /** The OpenAPI tag of the three routes. */
  tag: string;
  /** The resource's schema, and the path parameters' (`{ [idParam]: string }`). */
  schema: TSchema;
  params: TSchema;
  /** The caller's job `id`, or nothing when it is not theirs (or does not exist). */
  find(userId: string, id: string): Promise<Row | null | undefined>;
  /** `Retry-After` seconds of a job not yet terminal; undefined once it is. */
  retryAfter(row: Row): string | undefined;
  /** The job as the API shows it. */
  present(row: Row): unknown;
  list: {
    operationId: string;
    summary: string;
    /** The page schema's title, e.g. `TranscriptionPage`. */
    pageTitle: string;
    /** Query filters beside `limit` and `cursor`, in the order the OpenAPI document lists them. */
    filters: TProperties;
    /**
     * One page of the caller's jobs, newest first, after the job `afterId` (from the cursor):
     * `limit` rows and whether more follow.
     * @param filters - the query's filter values, validated by `filters`.
     */
    page(
      userId: string,
      filters: Record<string, string | undefined>,
      limit: number,
      afterId: string | undefined,
    ): Promise<{ rows: Row[]; hasMore: boolean }>;
    /** The page's jobs as the API shows them (default: `present` each); may batch lookups. */
    present?(rows: Row[]): Promise<unknown[]>;
  };
  get: { operationId: string; summary: string; description: string };
  cancel: {
    operationId: string;
    summary: string;
    description: string;
    /** Success statuses and their schemas (`{ 200: X }`, or `{ 200: X, 202: X }`). */
    ok: Record<number, TSchema>;
    /** Error statuses beside the authentication ones (403 for the write scope, 404, …). */
    errors: readonly number[];
    /**
     * Cancels the caller's job and returns it as it now is, or nothing when it is not theirs;
     * throws the resource's own refusals (e.g. 409).
     */
    run(request: FastifyRequest, userId: string, id: string): Promise<Row | null | undefined>;
    /** The status code of a cancel's answer (default 200). */
    status?(row: Row): number;
  };
}

/**
 * Registers the list, get and cancel routes every job resource has, the same way for each:
 * - `GET <path>`: the caller's jobs, newest first, in cursor pages (`limit` 1..100, default 25)
 *   with the resource's filters; a foreign cursor is a 400 naming `/cursor`;
 * - `GET <path>/:id`: one job, 404 when it is not the caller's, `Retry-After` until terminal;
 * - `DELETE <path>/:id` (write scope): cancels it, 404 when it is not the caller's.
 */
export function registerJobResourceRoutes<Row extends { id: string }>(
  app: KeyApp,
  r: JobResource<Row>,
): void {
  const idOf = (request: FastifyRequest) => (request.params as Record<string, string>)[r.idParam] as string;
  const found = (id: string, row: Row | null | undefined): Row => {
    if (!row) throw notFound(`${r.noun} ${id}`);
    return row;
  };

  app.get(
    r.path,
    {
      schema: {
        operationId: r.list.operationId,
        summary: r.list.summary,
        tags: [r.tag],
        querystring: Type.Object({ ...PageQuery, ...r.list.filters }),
        response: responses({ 200: Page(r.schema, r.list.pageTitle) }),
      },
    },
    async (request) => {
      const auth = request.auth;
      const { limit, cursor, ...filters } = request.query as Record<string, string | undefined> & {
        limit?: number;
      };
      const window = pageWindow({ limit, cursor });
      const page = await r.list.page(auth.userId, filters, window.limit, window.afterId);
      const data = r.list.present
        ? await r.list.present(page.rows)
        : await Promise.all(page.rows.map((row) => r.present(row)));
      return { data, nextCursor: toPage(page, () => null).nextCursor };
    },
  );

  app.get(
    `${r.path}/:${r.idParam}`,
    {
      schema: {
        operationId: r.get.operationId,
        summary: r.get.summary,
        description: r.get.description,
        tags: [r.tag],
        params: r.params,
        response: responses({ 200: r.schema }, [...AUTH_ERRORS, 404]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const id = idOf(request);
      const row = found(id, await r.find(auth.userId, id));
      const retryAfter = r.retryAfter(row);
      if (retryAfter !== undefined) reply.header("Retry-After", retryAfter);
      return r.present(row);
    },
  );

  app.delete(
    `${r.path}/:${r.idParam}`,
    {
      config: { scope: "write" },
      schema: {
        operationId: r.cancel.operationId,
        summary: r.cancel.summary,
        description: r.cancel.description,
        tags: [r.tag],
        params: r.params,
        response: responses(r.cancel.ok, [...AUTH_ERRORS, ...r.cancel.errors]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const id = idOf(request);
      const row = found(id, await r.cancel.run(request, auth.userId, id));
      return reply.code(r.cancel.status?.(row) ?? 200).send(await r.present(row));
    },
  );
}
