/**
 * Loads a second, separate copy of a module, as a provider host does when a program pulls in
 * two copies of the package (or a new host loads it afresh): the module's code runs again and
 * builds its own module-level values, while its imports stay the ones already loaded. The first
 * copy stays in the require cache for every other test.
 */
export function loadSecondCopy<T>(absolutePath: string): T {
  const resolved = require.resolve(absolutePath);
  const first = require.cache[resolved];
  delete require.cache[resolved];
  try {
    return require(resolved) as T;
  } finally {
    if (first) require.cache[resolved] = first;
    else delete require.cache[resolved];
  }
}
