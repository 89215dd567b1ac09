// StrykerJS configuration for `npm run mutate` (.ci/mutate.sh runs it on a pinned Node 22).
// Scope: the HTTP client (src/api), the configuration (src/config) and the provider code
// (src/provider); not the emulator, not the engine driver. Survivors accepted as equivalent or
// harmless are listed in test/MUTATION.md. Progress wording is out of scope too: every progress
// line is worded in src/provider/progress.ts. Error messages stay in scope: users read them.
/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  packageManager: "npm",
  testRunner: "mocha",
  plugins: ["@stryker-mutator/mocha-runner"],
  mutate: ["src/api/**/*.ts", "src/config/**/*.ts", "src/provider/**/*.ts", "!src/provider/progress.ts"],
  mochaOptions: {
    // Unit and integration suites only: test/engine spawns provider hosts and pulumi programs,
    // seconds per test, and reaches the code through dist/, which Stryker does not mutate.
    spec: ["test/unit/**/*.test.ts", "test/integration/**/*.test.ts"],
    require: ["ts-node/register/transpile-only"],
  },
  // Each mutant runs only the tests that reached it: the suites take about a minute in full.
  coverageAnalysis: "perTest",
  // The machine is shared and has 2 cores; tests measure real (scaled) time.
  concurrency: 2,
  timeoutMS: 10000,
  timeoutFactor: 2,
  // Everything else is copied: public-surface.test.ts loads dist/, the CLI tests read examples/.
  ignorePatterns: [".runtimes", "reports", "test/engine"],
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: ".stryker-tmp",
};
