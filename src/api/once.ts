/** Memoizes a builder (schemas are costly to build and immutable): built on first call, shared after. */
export function once<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}
