import assert from "node:assert/strict";
import { packageSchema } from "../../src/plugin/schema";
import { readRepoFile as read, yaml } from "../helpers/repoFiles";

/*
 * The YAML and Python examples and docs/plugin.md cannot be run here (no Pulumi CLI): every
 * type, function, property and config key they use is checked against the plugin's schema, as
 * the SDK generator and the YAML engine would read it.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const schema = packageSchema() as Json;
const camel = (snake: string) => snake.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** The names a resource or function token accepts as inputs and offers as outputs. */
function member(token: string): { inputs: string[]; outputs: string[] } {
  const resource = schema.resources[token];
  if (resource)
    return {
      inputs: Object.keys(resource.inputProperties),
      outputs: [...Object.keys(resource.properties), "id", "urn"],
    };
  const fn = schema.functions[token];
  assert.ok(fn, `${token} is in the schema`);
  return { inputs: Object.keys(fn.inputs.properties), outputs: Object.keys(fn.outputs.properties) };
}

/** Every `dbcloud:<key>` config key in `text` is a config variable of the schema. */
function checkConfigKeys(text: string, where: string): number {
  const keys = [...text.matchAll(/(?<![/\w])dbcloud:(?!index:)(\w+)/g)].map((m) => m[1]);
  for (const key of keys) assert.ok(schema.config.variables[key], `${where}: config key dbcloud:${key}`);
  return keys.length;
}

/** The text of the call that opens at `start` (just after its parenthesis), to its closing one. */
function callText(source: string, start: number): string {
  let depth = 1;
  let i = start;
  for (; depth > 0 && i < source.length; i++) depth += source[i] === "(" ? 1 : source[i] === ")" ? -1 : 0;
  return source.slice(start, i - 1);
}

describe("plugin: examples and docs use only what the schema has", function () {
  it("examples/yaml: resource types, properties, the function, its arguments and every output read", function () {
    const program = yaml.load(read("examples", "yaml", "Pulumi.yaml")) as Json;
    const used: Record<string, string> = {};
    for (const [name, resource] of Object.entries<Json>(program.resources)) {
      const { inputs } = member(resource.type);
      for (const key of Object.keys(resource.properties)) assert.ok(inputs.includes(key), `${name}.${key}`);
      used[name] = resource.type;
    }
    for (const [name, variable] of Object.entries<Json>(program.variables ?? {})) {
      const invoke = variable["fn::invoke"];
      const { inputs } = member(invoke.function);
      for (const key of Object.keys(invoke.arguments)) assert.ok(inputs.includes(key), `${name}.${key}`);
      used[name] = invoke.function;
    }
    const references = [...JSON.stringify(program).matchAll(/\$\{(\w+)\.(\w+)\}/g)];
    assert.ok(references.length >= 3);
    for (const [, name, property] of references) {
      assert.ok(member(used[name]).outputs.includes(property), `\${${name}.${property}}`);
    }
    checkConfigKeys(read("examples", "yaml", "Pulumi.yaml"), "examples/yaml");
  });

  it("examples/python: classes, keyword arguments and attributes, in the SDK's snake_case", function () {
    const source = read("examples", "python", "__main__.py");
    const calls = [...source.matchAll(/(\w+) = dbcloud\.(\w+)\(/g)];
    assert.ok(calls.length >= 2);
    for (const call of calls) {
      const [, variable, name] = call;
      const token = `dbcloud:index:${name.replace(/_output$/, "")}`.replace(/:get_service$/, ":getService");
      const { inputs, outputs } = member(token);
      // The resource's own arguments: those before `opts=` (whose keywords are Pulumi's).
      const text = callText(source, call.index! + call[0].length).split("opts=")[0];
      for (const [, keyword] of text.matchAll(/(?:^|[(,\s])(\w+)=/g)) {
        assert.ok(inputs.includes(camel(keyword)), `${name}(${keyword}=)`);
      }
      for (const [, attribute] of source.matchAll(new RegExp(`\\b${variable}\\.(\\w+)`, "g"))) {
        assert.ok(outputs.includes(camel(attribute)), `${variable}.${attribute}`);
      }
    }
    checkConfigKeys(source, "examples/python");
  });

  it("docs/plugin.md: every token and config key it names", function () {
    const text = read("docs", "plugin.md");
    for (const [token] of text.matchAll(/dbcloud:index:\w+/g)) member(token);
    assert.equal(checkConfigKeys(text, "docs/plugin.md") >= 5, true);
  });
});
