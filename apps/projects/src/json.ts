/**
 * How deep a JSON value nests, found without recursion. A value nested deeper than the stack
 * allows (`{"a":{"a":…}}` 100,000 levels, which `JSON.parse` accepts) makes every recursive walk
 * — `JSON.stringify`, `structuredClone`, a merge — throw a RangeError. Input is measured with
 * this first, so that such a value is refused as a validation error before anything recursive
 * touches it.
 */

/** One container on the walk's explicit stack, with the way back to the root for the path. */
interface Frame {
  value: object;
  depth: number;
  key: string;
  parent: Frame | undefined;
}

/**
 * The path (keys and array indices, root first) of a container that nests more than `max`
 * levels deep, or undefined when none does. Depth counts containers: `1` is 0 deep, `{}` and
 * `[]` 1, `{"a":[]}` 2. Stops at the first one found, so a too-deep value costs no more than the
 * part of it walked so far.
 */
export function deeperThan(value: unknown, max: number): string[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stack: Frame[] = [{ value, depth: 1, key: '', parent: undefined }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if (frame.depth > max) {
      const path: string[] = [];
      for (let f: Frame | undefined = frame; f?.parent !== undefined; f = f.parent) {
        path.push(f.key);
      }
      return path.reverse();
    }
    const container = frame.value;
    if (Array.isArray(container)) {
      for (let i = container.length - 1; i >= 0; i--) {
        const child: unknown = container[i];
        if (typeof child === 'object' && child !== null) {
          stack.push({ value: child, depth: frame.depth + 1, key: String(i), parent: frame });
        }
      }
    } else {
      const keys = Object.keys(container);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        const child: unknown = (container as Record<string, unknown>)[key];
        if (typeof child === 'object' && child !== null) {
          stack.push({ value: child, depth: frame.depth + 1, key, parent: frame });
        }
      }
    }
  }
  return undefined;
}
