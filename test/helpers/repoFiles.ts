import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The package's root folder. */
export const ROOT = join(__dirname, "..", "..");

/** A file of the package, by its path from the root, as text. */
export const readRepoFile = (...path: string[]) => readFileSync(join(ROOT, ...path), "utf8");

/** YAML parsed with the parser the Pulumi SDK itself uses (no dependency of our own). */
export const yaml: { load(text: string): unknown } = require(
  require.resolve("js-yaml", { paths: [dirname(require.resolve("@pulumi/pulumi/package.json"))] }),
);
