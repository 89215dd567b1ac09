import { pythonVenv, usePythonProgram } from "./helpers/pythonProgram";
import { sdkStory } from "./helpers/sdkStory";

/*
 * examples/python on the committed Python SDK (the wheel built from sdk/python), under the real
 * CLI, with the plugin's single executable as the provider and no Node.js on the CLI's PATH: a
 * Python user's whole install, as docs/plugin.md gives it.
 */

sdkStory("real engine: examples/python on sdk/python and the single-executable plugin, no Node.js", {
  example: "python",
  requirements: () => [pythonVenv()],
  plugin: "Pulumi.yaml",
  useProgram: async (stack, [venv]) => {
    await usePythonProgram(stack, venv);
  },
  // Day all day, then night all day: the desired state does not follow the test machine's clock.
  running: [
    ["startAtHour", "0"],
    ["stopAtHour", "24"],
  ],
  stopped: ["stopAtHour", "0"],
});
