/*
 * The version is kept in package.json only. This file sits two folders below the package root as
 * source (src/api) and as built code (dist/api, also in an install), so one relative path finds
 * the manifest from each; the plugin binary's bundler inlines it.
 */
const manifest = require("../../package.json") as { version: string };

/** The package version, sent in the User-Agent and reported by the plugin and its schema. */
export const PACKAGE_VERSION: string = manifest.version;
export const USER_AGENT = `pulumi-dbcloud/${PACKAGE_VERSION}`;
