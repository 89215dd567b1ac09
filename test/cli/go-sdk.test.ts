import { goCommand, useGoProgram } from "./helpers/goProgram";
import { sdkStory } from "./helpers/sdkStory";

/*
 * examples/go's program on the committed Go SDK (sdk/go, through a replace line), under the real
 * CLI, with the plugin's single executable installed by `pulumi plugin install --file` and no
 * Node.js on the CLI's PATH.
 */

sdkStory("real engine: examples/go on sdk/go and the single-executable plugin, no Node.js", {
  example: "go",
  requirements: () => [goCommand()],
  plugin: "plugin install",
  useProgram: (stack) => useGoProgram(stack),
  running: [["desiredState", "running"]],
  stopped: ["desiredState", "stopped"],
});
