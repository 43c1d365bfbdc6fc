import { Type } from "typebox";
import type { Clock } from "../../../clock.ts";
import type { Db } from "../../../db/client.ts";
import {
  createProject,
  deleteProject,
  getProject,
  listProjects,
  updateProject,
} from "../../../domain/projects/projects.ts";
import type { BlobStore } from "../../../storage/blob-store.ts";
import { pageWindow, toPage } from "../../pagination.ts";
import { presentProject } from "../../presenters/projects.ts";
import { AUTH_ERRORS, Page, PageQuery, responses } from "../../schemas/common.ts";
import { Project, ProjectCreate, ProjectDeleteQuery, ProjectUpdate } from "../../schemas/project.ts";
import type { KeyApp } from "../../types.ts";

const ProjectParams = Type.Object({ projectId: Type.String({ maxLength: 64 }) });

/**
 * Project routes: list (newest first, cursor pages), fetch, create, update and delete (with an
 * explicit choice for the contents of a non-empty project); all scoped to the key's owner.
 */
export function registerProjectRoutes(app: KeyApp, deps: { db: Db; store: BlobStore; clock: Clock }): void {
  app.get(
    "/api/v1/projects",
    {
      schema: {
        operationId: "listProjects",
        summary: "List the caller's projects, newest first",
        tags: ["Projects"],
        querystring: Type.Object(PageQuery),
        response: responses({ 200: Page(Project, "ProjectPage") }),
      },
    },
    async (request) => {
      const auth = request.auth;
      const page = await listProjects(deps.db, auth.userId, pageWindow(request.query));
      return toPage(page, presentProject);
    },
  );

  app.get(
    "/api/v1/projects/:projectId",
    {
      schema: {
        operationId: "getProject",
        summary: "Fetch one project",
        tags: ["Projects"],
        params: ProjectParams,
        response: responses({ 200: Project }, [...AUTH_ERRORS, 404]),
      },
    },
    async (request) => {
      const auth = request.auth;
      return presentProject(await getProject(deps.db, auth.userId, request.params.projectId));
    },
  );

  app.post(
    "/api/v1/projects",
    {
      config: { scope: "write" },
      schema: {
        operationId: "createProject",
        summary: "Create a project",
        tags: ["Projects"],
        body: ProjectCreate,
        response: responses({ 201: Project }, [...AUTH_ERRORS, 403, 413, 415]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const project = await createProject(deps.db, auth.userId, request.body);
      return reply.code(201).send(presentProject(project));
    },
  );

  app.patch(
    "/api/v1/projects/:projectId",
    {
      config: { scope: "write" },
      schema: {
        operationId: "updateProject",
        summary: "Rename a project or change its description",
        tags: ["Projects"],
        params: ProjectParams,
        body: ProjectUpdate,
        response: responses({ 200: Project }, [...AUTH_ERRORS, 403, 404, 413, 415]),
      },
    },
    async (request) => {
      const auth = request.auth;
      const project = await updateProject(deps.db, {
        userId: auth.userId,
        projectId: request.params.projectId,
        ...request.body,
        now: deps.clock.now(),
      });
      return presentProject(project);
    },
  );

  app.delete(
    "/api/v1/projects/:projectId",
    {
      config: { scope: "write" },
      schema: {
        operationId: "deleteProject",
        summary: "Delete a project, choosing what happens to its contents",
        description:
          "An empty project is deleted outright (204). A project holding uploads, compositions, generations or assistant sessions answers 409 with their counts (`contents`) unless `contents` says what to do: `delete` removes them with the project (uploads with their stored files; refused with 409 while one of its generations is still queued or running), `keep` leaves them in the account outside any project (listing uploads or compositions without `projectId` shows them). Renders belong to the account, not the project: they keep their frozen composition and output either way.",
        tags: ["Projects"],
        params: ProjectParams,
        querystring: ProjectDeleteQuery,
        response: responses({ 204: null }, [...AUTH_ERRORS, 403, 404, 409]),
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      await deleteProject(
        { db: deps.db, store: deps.store, log: request.log },
        { userId: auth.userId, projectId: request.params.projectId, contents: request.query.contents },
      );
      return reply.code(204).send();
    },
  );
}
