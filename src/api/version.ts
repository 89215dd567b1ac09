/** The package version, sent in the User-Agent. A unit test keeps it equal to package.json's. */
export const PACKAGE_VERSION = "0.2.0";
export const USER_AGENT = `pulumi-dbcloud/${PACKAGE_VERSION}`;
