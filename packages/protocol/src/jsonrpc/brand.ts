/**
 * Whether `value` carries `brand` — how this package recognises its own error classes instead of
 * `instanceof`, so errors made by a second copy of the package (two versions in one
 * node_modules tree) are still recognised. Brands are `Symbol.for` keys, shared across copies.
 */
export function hasBrand(value: unknown, brand: symbol): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[brand] === true
  );
}
