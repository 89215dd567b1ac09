// package.json holds the version: src/api and dist/api both sit two folders below it, and the plugin
// binary's bundler inlines it.
const manifest = require("../../package.json") as { version: string };

/** The package version, sent in the User-Agent and reported by the plugin and its schema. */
export const PACKAGE_VERSION: string = manifest.version;
export const USER_AGENT = `pulumi-dbcloud/${PACKAGE_VERSION}`;
