import { InvalidParamsError } from '../../jsonrpc/errors.js';
import { method, type RequestContext } from '../../jsonrpc/method.js';
import { type McpCallExtra, McpContext } from '../context.js';
import type { ServerInternals } from '../internals.js';
import { CompleteParams } from '../params.js';
import type { Completer } from '../resource.js';

const MAX_VALUES = 100;

export function completionMethods(server: ServerInternals) {
  return [
    method(
      'completion/complete',
      CompleteParams,
      async (params, ctx: RequestContext<McpCallExtra>) => {
        const { ref, argument } = params;
        let completer: Completer | undefined;
        if (ref.type === 'ref/prompt') {
          const prompt = server.prompts.get(ref.name);
          if (!prompt || server.missingScope(prompt, ctx.extra))
            throw new InvalidParamsError(`Unknown prompt: ${ref.name}`, { prompt: ref.name });
          completer = Object.hasOwn(prompt.complete, argument.name)
            ? prompt.complete[argument.name]
            : undefined;
        } else {
          const template = server.templates.find((t) => t.template.template === ref.uri);
          const resource = server.resources.get(ref.uri);
          const known = template ?? resource;
          if (!known || server.missingScope(known, ctx.extra)) {
            throw new InvalidParamsError(`Unknown resource template: ${ref.uri}`, { uri: ref.uri });
          }
          completer =
            template && Object.hasOwn(template.complete, argument.name)
              ? template.complete[argument.name]
              : undefined;
        }
        if (!completer) return { completion: { values: [], hasMore: false } };
        const all = await completer(
          argument.value,
          new McpContext(ctx, params._meta),
          params.context?.arguments ?? {},
        );
        const values = all.slice(0, MAX_VALUES);
        return { completion: { values, total: all.length, hasMore: all.length > MAX_VALUES } };
      },
    ),
  ];
}
