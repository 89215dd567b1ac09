#!/usr/bin/env node
/*
 * `pulumi-resource-dbcloud`: the provider plugin as the engine starts it, with the engine's
 * address as its last argument (after flags such as `--logtostderr` or `--tracing <url>`). It
 * prints the port it serves on as the first line of stdout, and nothing else there. The
 * source-plugin folder (plugin/ at the package's root) requires this same file.
 */
import { redirectConsole } from "./log";
import { serve } from "./server";

const engineAddress = process.argv
  .slice(2)
  .filter((arg, i, args) => !arg.startsWith("-") && args[i - 1] !== "--tracing")
  .pop();
redirectConsole(engineAddress);
serve().then(
  ({ port }) => process.stdout.write(`${port}\n`),
  (error: Error) => {
    process.stderr.write(`pulumi-resource-dbcloud: cannot serve: ${error.message}\n`);
    process.exit(1);
  },
);
