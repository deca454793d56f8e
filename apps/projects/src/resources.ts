import {
  defineResource,
  defineResourceTemplate,
  type McpContext,
  UriTemplate,
} from '@mcpkit/protocol';
import { caller, ownProject } from './access.js';
import type { Store } from './db/types.js';
import { defaultTokens, tokenDocument } from './dtcg.js';
import { authorizationFailed, notFound, validationError } from './errors.js';
import { PLATFORMS, type Platform, TokenBuildError } from './tokens/build.js';
import type { TokenBuilder } from './tokens/builder.js';
import { designSystemUri, PROJECTS_URI } from './tools/common.js';
import { currentTokens, modeTokens } from './tools/tokens-common.js';

const TOKEN_BUILD = new UriTemplate('codefluss://projects/{projectId}/tokens/{platform}');

/**
 * The project and platform of a token build's URI, if it is one (any platform name: an unknown
 * one is refused where it is read).
 */
export function tokenBuildMatch(uri: string) {
  const match = TOKEN_BUILD.match(uri);
  return match?.projectId === undefined
    ? undefined
    : { projectId: match.projectId, platform: match.platform ?? '' };
}

const MAX_LISTED = 1000;

function readable(ctx: McpContext) {
  const who = caller(ctx);
  if (!who.scopes.has('read')) throw authorizationFailed("API key lacks scope 'read'");
  return who;
}

export function projectResources(store: Store, builder: TokenBuilder) {
  const projects = defineResource({
    uri: PROJECTS_URI,
    name: 'Projects',
    description: 'Alle Projekte des Benutzers',
    mimeType: 'application/json',
    read: async (ctx) => {
      const who = readable(ctx);
      const list: { id: string; name: string }[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listProjects(who.userId, { cursor, limit: 100 });
        list.push(...page.items.map(({ id, name }) => ({ id, name })));
        cursor = page.nextCursor;
      } while (cursor && list.length < MAX_LISTED);
      return JSON.stringify(list.slice(0, MAX_LISTED));
    },
  });

  const designSystem = defineResourceTemplate({
    uriTemplate: 'codefluss://design-system/{projectId}',
    name: 'Design System',
    description: 'Design Tokens eines Projekts',
    mimeType: 'application/json',
    // Listed by resources/templates/list only. The CODEFLUSS protocol page's resources/list
    // example shows the template among the resources, but a Resource's `uri` is a URI (MCP
    // schema, every revision) and `{projectId}` is none: a client that checks it refuses the
    // whole list.
    // Completing offers the user's project ids: reading them, so the same scope as reading.
    complete: {
      projectId: async (value, ctx) => {
        const who = readable(ctx);
        return store.projectIdsStartingWith(who.userId, value, 100);
      },
    },
    read: async (uri, { projectId }, ctx) => {
      const who = readable(ctx);
      const id = projectId ?? '';
      const project = await ownProject(store, who, id);
      const system = await store.getDesignSystem(id);
      const doc = tokenDocument(
        system?.tokens ?? defaultTokens(),
        id,
        system?.updatedAt ?? project.updatedAt,
      );
      return { uri, mimeType: 'application/json', text: JSON.stringify(doc) };
    },
  });
  const tokenBuild = defineResourceTemplate({
    uriTemplate: TOKEN_BUILD.template,
    name: 'Design tokens built',
    description: `A project’s design tokens built with Style Dictionary for a platform: ${PLATFORMS.join(', ')}. Subscribable: updated when the tokens change.`,
    complete: {
      projectId: async (value, ctx) => {
        const who = readable(ctx);
        return store.projectIdsStartingWith(who.userId, value, 100);
      },
      platform: async (value) => PLATFORMS.filter((p) => p.startsWith(value)),
    },
    read: async (uri, { projectId, platform }, ctx) => {
      const who = readable(ctx);
      const id = projectId ?? '';
      await ownProject(store, who, id);
      if (!(PLATFORMS as readonly string[]).includes(platform ?? ''))
        throw notFound('resource', uri);
      const { tokens, version, updatedAt, resolver } = await currentTokens(store, id);
      // With modes: the default mode, as the plain files of build_design_tokens.
      const [one] = modeTokens(tokens, resolver, undefined);
      if (!one) throw notFound('resource', uri);
      try {
        const key = `${id}@${version}@${updatedAt}@${one.label}`;
        const files = await builder.build(
          key,
          one.tokens,
          platform as Platform,
          one.options,
          who.userId,
        );
        // The first file at the resource's URI; a second (the js build's .d.ts) beside it.
        return files.map((file, i) => ({
          uri: i === 0 ? uri : `${uri}/${file.name}`,
          mimeType: file.mimeType,
          text: file.contents,
        }));
      } catch (error) {
        if (!TokenBuildError.is(error)) throw error;
        throw validationError('tokens', `the ${platform} build failed: ${error.message}`);
      }
    },
  });
  return { projects, designSystem, tokenBuild, designSystemUri };
}
