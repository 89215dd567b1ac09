// The source plugin's entry: the Node language host requires this file with the engine's address
// in process.argv. It starts the same server as the package's bin, found through package.json's
// "bin" so that no extra public subpath is needed.
"use strict";
const { dirname, join } = require("node:path");
const manifest = require.resolve("pulumi-dbcloud/package.json");
require(join(dirname(manifest), require(manifest).bin["pulumi-resource-dbcloud"]));
