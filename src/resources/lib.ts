import type * as ProviderModule from "../provider";

/**
 * The implementation behind the provider objects, loaded by package name when a method runs.
 *
 * Serialized, each provider method is then one line naming `pulumi-dbcloud/provider`: about
 * 2 KB per resource in the state, the same text whether the program imports the package from
 * npm or from this repository (which links itself into node_modules), and destroy or refresh of
 * an old stack runs the installed version rather than a frozen copy. Letting Pulumi capture the
 * implementation by value instead made the provider 64 to 77 KB, and a failed create carrying
 * it as `__provider` exceeded gRPC's 64 KB header block: the host never answered.
 */
export function lib(): typeof ProviderModule {
  return require("pulumi-dbcloud/provider");
}
