/** Runs shared by several checks (and by the default and paper test files) happen once per process. */
export function memo<V>(cache: Map<string, V>, key: string, make: () => V): V {
  let v = cache.get(key);
  if (v === undefined) cache.set(key, (v = make()));
  return v;
}
