import { defineTool, ToolError } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import { PLATFORMS, TokenBuildError } from '../tokens/build.js';
import { projectId, READ, READ_ONLY, type ToolDeps } from './common.js';
import { currentTokens, modeTokens, tokenBuildUri } from './tokens-common.js';

const fileShape = z.object({
  name: z.string(),
  mimeType: z.string(),
  contents: z.string(),
  mode: z.string().optional().describe('The mode it is built for, e.g. theme=dark'),
});

export const buildDesignTokens = (deps: ToolDeps) =>
  defineTool({
    name: 'build_design_tokens',
    title: 'Build design tokens',
    description:
      'Builds a project’s design tokens into code with Style Dictionary 5: css (custom properties on :root), scss (variables), js (ES module + .d.ts), tailwind (a Tailwind CSS v4 @theme block), json (flat), swift (an iOS UIKit class), android (resources XML). Aliases stay aliases in CSS and SCSS. The same build is the resource codefluss://projects/{projectId}/tokens/{platform}.',
    inputSchema: z.object({
      projectId,
      platform: z.enum(PLATFORMS).describe('Which code to build'),
      mode: z
        .record(z.string(), z.string())
        .optional()
        .describe(
          'For a project with modes: the mode to build, e.g. {"theme": "dark"} (default: every mode, the others set apart by [data-…] selectors and file names)',
        ),
    }),
    outputSchema: z.object({
      projectId: z.string(),
      platform: z.enum(PLATFORMS),
      version: z.number().int().describe('The token version built (0: the starter tokens)'),
      uri: z.string(),
      files: z.array(fileShape),
    }),
    annotations: READ_ONLY,
    requiredScopes: READ,
    handler: async ({ projectId: id, platform, mode }, ctx) => {
      const who = caller(ctx);
      await ownProject(deps.store, who, id);
      const { tokens, version, updatedAt, resolver } = await currentTokens(deps.store, id);
      const files: z.infer<typeof fileShape>[] = [];
      try {
        for (const one of modeTokens(tokens, resolver, mode)) {
          const key = `${id}@${version}@${updatedAt}@${one.label}`;
          const built = await deps.builder.build(
            key,
            one.tokens,
            platform,
            one.options,
            who.userId,
          );
          for (const file of built) {
            files.push(one.label === '' ? file : { ...file, mode: one.label });
          }
        }
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
