/**
 * The stack configuration the way the Pulumi CLI stores it and hands it to the program, so that
 * documented `pulumi config set` commands can be run against the examples without the CLI.
 *
 * - `pulumi config set key value`: a string (under `<project>:` when the key has no namespace).
 * - `--secret`: the same, listed as a secret key.
 * - `--path 'a[0].b' value`: builds an object or list. A value that is `true`/`false` is stored as
 *   a boolean, an integer (no leading zero) as a number, anything else as a string: JSON text
 *   given to `--path` stays a string. A path that is a single key stores a plain string.
 * - The program receives strings as they are and objects/lists as JSON text.
 */

export interface CliConfig {
  values: Map<string, unknown>;
  secretKeys: Set<string>;
}

export function emptyCliConfig(): CliConfig {
  return { values: new Map(), secretKeys: new Set() };
}

/** Splits a shell command line: whitespace, single and double quotes (no escapes inside '...'). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let current = "";
  let quote: string | undefined;
  let started = false;
  for (const char of line) {
    if (quote) {
      if (char === quote) quote = undefined;
      else current += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      started = true;
    } else if (/\s/.test(char)) {
      if (started) words.push(current);
      current = "";
      started = false;
    } else {
      current += char;
      started = true;
    }
  }
  if (quote) throw new Error(`unterminated quote in: ${line}`);
  if (started) words.push(current);
  return words;
}

/** How `--path` stores a value: booleans and integers typed, everything else a string. */
export function pathValue(text: string): unknown {
  if (text === "true") return true;
  if (text === "false") return false;
  if (text.length > 1 && text.startsWith("0")) return text;
  if (/^-?\d+$/.test(text) && Number.isSafeInteger(Number(text))) return Number(text);
  return text;
}

/** `services[0].name` -> ["services", 0, "name"] */
function parsePath(path: string): (string | number)[] {
  const parts: (string | number)[] = [];
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    parts.push(match[2] !== undefined ? Number(match[2]) : match[1]);
  }
  if (!parts.length || typeof parts[0] !== "string") throw new Error(`bad config path: ${path}`);
  return parts;
}

function fullKey(key: string, project: string): string {
  return key.includes(":") ? key : `${project}:${key}`;
}

/** Applies the arguments of one `pulumi config set` (everything after `set`). */
export function configSet(config: CliConfig, args: string[], project: string): void {
  const flags = args.filter((a) => a.startsWith("--"));
  const [key, value, ...rest] = args.filter((a) => !a.startsWith("--"));
  for (const flag of flags) {
    if (flag !== "--path" && flag !== "--secret" && flag !== "--plaintext") {
      throw new Error(`pulumi config set: flag ${flag} is not modelled`);
    }
  }
  if (key === undefined || value === undefined || rest.length) {
    throw new Error(`pulumi config set needs a key and one value: ${args.join(" ")}`);
  }
  const path = flags.includes("--path") ? parsePath(key) : [key];
  const root = fullKey(path[0] as string, project);
  if (flags.includes("--secret")) config.secretKeys.add(root);
  if (path.length === 1) {
    config.values.set(root, value);
    return;
  }
  let container = config.values.get(root);
  if (container === undefined || typeof container !== "object") {
    container = typeof path[1] === "number" ? [] : {};
    config.values.set(root, container);
  }
  let node = container as Record<string | number, unknown>;
  for (let i = 1; i < path.length - 1; i++) {
    const part = path[i];
    if (node[part] === undefined || typeof node[part] !== "object") {
      node[part] = typeof path[i + 1] === "number" ? [] : {};
    }
    node = node[part] as Record<string | number, unknown>;
  }
  node[path[path.length - 1]] = pathValue(value);
}

/** Every `pulumi config set ...` line of a text (README block, comment, CI file), as argument lists. */
export function configSetCommands(text: string): string[][] {
  return (
    text
      .split("\n")
      // Leading comment markers (`*`, `#`, `//`) and YAML list dashes; trailing `# comments`.
      .map((line) => line.replace(/^\s*(\*|#|\/\/|-)?\s*/, "").replace(/\s+#.*$/, ""))
      .filter((line) => line.startsWith("pulumi config set "))
      .map((line) => shellWords(line).slice(3))
  );
}

/** What the program receives: strings as they are, objects and lists as JSON text. */
export function runtimeConfig(config: CliConfig): { config: Record<string, string>; secretKeys: string[] } {
  const out: Record<string, string> = {};
  for (const [key, value] of config.values) {
    out[key] = typeof value === "string" ? value : JSON.stringify(value);
  }
  return { config: out, secretKeys: [...config.secretKeys] };
}
