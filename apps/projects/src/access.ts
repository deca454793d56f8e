import type { McpContext } from '@mcpkit/protocol';
import type { Project, Scope, Store } from './db/types.js';
import { authenticationFailed, authorizationFailed, notFound } from './errors.js';

export interface Caller {
  userId: string;
  scopes: ReadonlySet<string>;
}

/** Who is calling: the user behind the API key (HTTP) or the stdio identity. */
export function caller(ctx: McpContext): Caller {
  const userId = ctx.auth?.data?.userId;
  if (typeof userId !== 'string') throw authenticationFailed();
  return { userId, scopes: ctx.auth?.scopes ?? new Set() };
}

export function requireScope(who: Caller, scope: Scope): void {
  if (!who.scopes.has(scope)) throw authorizationFailed(`API key lacks scope '${scope}'`);
}

/**
 * The project, if it exists and belongs to the caller. A foreign project is an authorization
 * failure (CODEFLUSS's -32002: no permission for this action); a missing one is -32003.
 */
export async function ownProject(store: Store, who: Caller, projectId: string): Promise<Project> {
  const project = await store.getProject(projectId);
  if (!project) throw notFound('project', projectId);
  if (project.userId !== who.userId) throw authorizationFailed('project belongs to another user');
  return project;
}
