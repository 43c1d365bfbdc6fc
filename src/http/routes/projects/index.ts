import { Type } from "typebox";
import type { Db } from "../../../db/client.ts";
import { findProject, insertProject, listProjectsPage } from "../../../db/repositories/projects.ts";
import { notFound } from "../../../errors.ts";
import { decodeCursor, toPage } from "../../pagination.ts";
import { presentProject } from "../../presenters.ts";
import { AUTH_ERRORS, Page, PageQuery, responses } from "../../schemas/common.ts";
import { Project, ProjectCreate } from "../../schemas/project.ts";
import { type App, requireAuth } from "../../types.ts";

/** Project routes: list (newest first, cursor pages), fetch and create; all scoped to the key's owner. */
export function registerProjectRoutes(app: App, deps: { db: Db }): void {
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
      const auth = requireAuth(request);
      const page = await listProjectsPage(deps.db, {
        userId: auth.userId,
        limit: request.query.limit ?? 25,
        afterId: decodeCursor(request.query.cursor),
      });
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
        params: Type.Object({ projectId: Type.String({ maxLength: 64 }) }),
        response: responses({ 200: Project }, [...AUTH_ERRORS, 404]),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const project = await findProject(deps.db, auth.userId, request.params.projectId);
      if (!project) throw notFound(`Project ${request.params.projectId}`);
      return presentProject(project);
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
      const auth = requireAuth(request);
      const project = await insertProject(deps.db, { userId: auth.userId, ...request.body });
      return reply.code(201).send(presentProject(project));
    },
  );
}
