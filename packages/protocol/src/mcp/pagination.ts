import { InvalidParamsError } from '../jsonrpc/errors.js';

/** Opaque cursors: the offset of the next page, base64url-encoded. */
export function paginate<T>(
  items: readonly T[],
  cursor: string | undefined,
  pageSize: number,
): { page: T[]; nextCursor?: string } {
  let offset = 0;
  if (cursor !== undefined) {
    const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
    offset = /^o:\d{1,9}$/.test(decoded) ? Number(decoded.slice(2)) : Number.NaN;
    if (!Number.isInteger(offset) || offset > items.length) {
      throw new InvalidParamsError('Invalid params', { detail: 'invalid cursor', cursor });
    }
  }
  const page = items.slice(offset, offset + pageSize);
  const next = offset + page.length;
  return next < items.length
    ? { page, nextCursor: Buffer.from(`o:${next}`).toString('base64url') }
    : { page };
}
