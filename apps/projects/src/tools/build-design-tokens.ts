import { defineTool, ToolError } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import { PLATFORMS, TokenBuildError } from '../tokens/build.js';
import { projectId, READ, type ToolDeps } from './common.js';
import { currentTokens, tokenBuildUri } from './tokens-common.js';

const fileShape = z.object({ name: z.string(), mimeType: z.string(), contents: z.string() });

export const buildDesignTokens = (deps: ToolDeps) =>
  defineTool({
    name: 'build_design_tokens',
    title: 'Build design tokens',
    description:
      'Builds a project’s design tokens into code with Style Dictionary 5: css (custom properties on :root), scss (variables), js (ES module + .d.ts), tailwind (a Tailwind CSS v4 @theme block), json (flat), swift (an iOS UIKit class), android (resources XML). Aliases stay aliases in CSS and SCSS. The same build is the resource codefluss://projects/{projectId}/tokens/{platform}.',
    inputSchema: z.object({
      projectId,
      platform: z.enum(PLATFORMS).describe('Which code to build'),
    }),
    outputSchema: z.object({
      projectId: z.string(),
      platform: z.enum(PLATFORMS),
      version: z.number().int().describe('The token version built (0: the starter tokens)'),
      uri: z.string(),
      files: z.array(fileShape),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    requiredScopes: READ,
    handler: async ({ projectId: id, platform }, ctx) => {
      await ownProject(deps.store, caller(ctx), id);
      const { tokens, version, updatedAt } = await currentTokens(deps.store, id);
      let files: Awaited<ReturnType<typeof deps.builder.build>>;
      try {
        files = await deps.builder.build(`${id}@${version}@${updatedAt}`, tokens, platform);
      } catch (error) {
        if (TokenBuildError.is(error)) {
          throw new ToolError(`The ${platform} build failed: ${error.message}`, {
            platform,
            error: error.message,
          });
        }
        throw error;
      }
      const result = { projectId: id, platform, version, uri: tokenBuildUri(id, platform), files };
      return {
        content: files.map((file) => ({
          type: 'text' as const,
          text: `// ${file.name}\n${file.contents}`,
        })),
        structuredContent: result,
      };
    },
  });
