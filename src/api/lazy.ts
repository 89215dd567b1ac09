/** A value built on first use and shared after (schemas are costly to build and immutable). */
export function lazy<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}
