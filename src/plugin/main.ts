#!/usr/bin/env node
/*
 * `pulumi-resource-dbcloud` as the engine starts it: the engine's address comes last (after flags
 * such as `--tracing <url>`), and the port is all it prints on stdout. plugin/index.js requires it.
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
