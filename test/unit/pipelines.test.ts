import assert from "node:assert/strict";
import {
  configSet,
  configSetCommands,
  emptyCliConfig,
  pathValue,
  runtimeConfig,
  shellWords,
} from "../../src/engine-driver/cliConfig";
import { readRepoFile, yaml } from "../helpers/repoFiles";

/*
 * The pipeline examples say what the README promises: preview on pull/merge requests, up on the
 * main branch, credentials only from the secret store as DBCLOUD_* variables, one flip of
 * runState on a schedule. (The program itself runs in test/engine/examples-pipelines.test.ts.)
 */
const read = (path: string) => readRepoFile("examples", "pipelines", path);
type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const CREDENTIALS = ["DBCLOUD_API_URL", "DBCLOUD_API_KEY_ID", "DBCLOUD_API_KEY_SECRET"];

describe("pipeline examples", () => {
  it("GitHub Actions: preview on pull requests, up on main, credentials from secrets", () => {
    const workflow = yaml.load(read("github/deploy.yml")) as Doc;
    assert.deepEqual(workflow.on.pull_request.branches, ["main"]);
    assert.deepEqual(workflow.on.push.branches, ["main"]);
    for (const name of CREDENTIALS) assert.equal(workflow.env[name], `\${{ secrets.${name} }}`);
    const pulumiStep = (job: Doc) => job.steps.find((s: Doc) => String(s.uses).startsWith("pulumi/actions@"));
    assert.match(workflow.jobs.preview.if, /github.event_name == 'pull_request'/);
    assert.equal(pulumiStep(workflow.jobs.preview).with.command, "preview");
    assert.match(workflow.jobs.up.if, /github.event_name == 'push' && github.ref == 'refs\/heads\/main'/);
    assert.equal(pulumiStep(workflow.jobs.up).with.command, "up");
    for (const job of Object.values(workflow.jobs) as Doc[]) {
      assert.equal(
        pulumiStep(job).with["stack-name"],
        "dev",
        "the stack whose Pulumi.dev.yaml is checked in",
      );
    }
  });

  it("GitHub Actions schedule: evening stops, morning starts, by one config value", () => {
    const workflow = yaml.load(read("github/dev-schedule.yml")) as Doc;
    const crons = workflow.on.schedule.map((s: Doc) => s.cron);
    assert.deepEqual(crons, ["0 19 * * 1-5", "0 7 * * 1-5"]);
    for (const name of CREDENTIALS) assert.equal(workflow.env[name], `\${{ secrets.${name} }}`);
    const script = workflow.jobs.flip.steps.map((s: Doc) => s.run ?? "").join("\n");
    assert.match(script, /"\$SCHEDULE" = "0 19 \* \* 1-5" \]; then RUN_STATE=stopped/);
    assert.match(script, /else RUN_STATE=running/);
    assert.deepEqual(configSetCommands(script), [["runState", "$RUN_STATE"]]);
    assert.match(script, /pulumi up --yes/);
  });

  it("GitLab CI: preview on merge requests, up on the default branch, the schedule flips runState", () => {
    const ci = yaml.load(read("gitlab/.gitlab-ci.yml")) as Doc;
    const rule = (job: string) => ci[job].rules.map((r: Doc) => r.if).join(" ");
    assert.match(rule("preview"), /\$CI_PIPELINE_SOURCE == "merge_request_event"/);
    assert.match(ci.preview.script.join("\n"), /^pulumi preview/m);
    assert.match(rule("up"), /\$CI_COMMIT_BRANCH == \$CI_DEFAULT_BRANCH/);
    assert.match(ci.up.script.join("\n"), /^pulumi up --yes/m);
    assert.match(rule("dev-schedule"), /\$CI_PIPELINE_SOURCE == "schedule"/);
    assert.deepEqual(configSetCommands(ci["dev-schedule"].script.join("\n")), [["runState", "$RUN_STATE"]]);
  });

  it("no credential is written in any pipeline or stack file", () => {
    for (const file of [
      "github/deploy.yml",
      "github/dev-schedule.yml",
      "gitlab/.gitlab-ci.yml",
      "Pulumi.dev.yaml",
    ]) {
      const text = read(file);
      assert.doesNotMatch(text, /apiKeySecret|DBCLOUD_API_KEY_SECRET:\s*[^$\s]/, file);
    }
    const stack = yaml.load(read("Pulumi.dev.yaml")) as Doc;
    assert.deepEqual(Object.keys(stack.config).sort(), [
      "dbcloud-pipelines:runState",
      "dbcloud-pipelines:services",
      "dbcloud:organizationId",
    ]);
  });
});

describe("the CLI's way of storing config (engine driver model)", () => {
  it("splits shell words and types --path values as the CLI does", () => {
    assert.deepEqual(shellWords(`set --path 'a[0]' '{"x": 1}' "two words"`), [
      "set",
      "--path",
      "a[0]",
      '{"x": 1}',
      "two words",
    ]);
    assert.deepEqual(["true", "false", "42", "007", "1.5", "{}", "running"].map(pathValue), [
      true,
      false,
      42,
      "007",
      "1.5",
      "{}",
      "running",
    ]);
  });

  it("builds lists and objects under the project namespace, JSON text for the program", () => {
    const config = emptyCliConfig();
    configSet(config, ["--path", "services[0]", '{"name":"a"}'], "proj");
    configSet(config, ["--path", "services[1].name", "b"], "proj");
    configSet(config, ["--path", "services[1].timeoutSeconds", "60"], "proj");
    configSet(config, ["--secret", "dbcloud:apiKeySecret", "s"], "proj");
    configSet(config, ["--path", "single", '{"k":1}'], "proj");
    const { config: runtime, secretKeys } = runtimeConfig(config);
    assert.deepEqual(JSON.parse(runtime["proj:services"]), [
      '{"name":"a"}',
      { name: "b", timeoutSeconds: 60 },
    ]);
    assert.equal(runtime["proj:single"], '{"k":1}');
    assert.equal(runtime["dbcloud:apiKeySecret"], "s");
    assert.deepEqual(secretKeys, ["dbcloud:apiKeySecret"]);
    assert.throws(() => configSet(config, ["--type", "x", "y"], "proj"), /not modelled/);
  });
});
