import { InvalidParamsError } from '../../jsonrpc/errors.js';
import { method, type RequestContext } from '../../jsonrpc/method.js';
import { type McpCallExtra, McpContext } from '../context.js';
import type { ServerInternals } from '../internals.js';
import { describeIssues, issueList, safeParseFast } from '../json-schema.js';
import { paginate } from '../pagination.js';
import { GetPromptParams, PaginatedParams } from '../params.js';
import { toPromptResult } from '../prompt.js';
import { afterHeld } from './tools.js';

export function promptMethods(server: ServerInternals) {
  return [
    method(
      'prompts/list',
      PaginatedParams,
      afterHeld(server, (params, ctx: RequestContext<McpCallExtra>) => {
        const { page, nextCursor } = paginate(
          [...server.prompts.values()]
            .filter((p) => !server.missingScope(p, ctx.extra))
            .map((p) => p.listEntry),
          params?.cursor,
          server.pageSize,
        );
        const result: Record<string, unknown> = { prompts: page };
        if (nextCursor) result.nextCursor = nextCursor;
        return result;
      }),
    ),
    method('prompts/get', GetPromptParams, async (params, ctx: RequestContext<McpCallExtra>) => {
      const prompt = server.prompts.get(params.name);
      // One the caller may not use is, to it, not there.
      if (!prompt || server.missingScope(prompt, ctx.extra))
        throw new InvalidParamsError(`Unknown prompt: ${params.name}`, { prompt: params.name });
      let args: Record<string, string | undefined> = params.arguments ?? {};
      if (prompt.arguments) {
        const parsed = await safeParseFast(prompt.arguments, args);
        if (!parsed.success) {
          throw new InvalidParamsError(
            `Invalid arguments for prompt ${prompt.name}: ${describeIssues(parsed.error)}`,
            {
              issues: issueList(parsed.error),
            },
          );
        }
        args = parsed.data;
      }
      return toPromptResult(await prompt.get(args, new McpContext(ctx, params._meta)));
    }),
  ];
}
