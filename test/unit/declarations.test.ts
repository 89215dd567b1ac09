import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import ts from "typescript";

/*
 * Editors show the doc comments of the declarations users compile against (dist/**.d.ts), so
 * every name the package root exports, and every public member of its classes and interfaces,
 * carries one. Read from the built declarations, as a consumer's editor reads them.
 *
 * KNOWN_UNDOCUMENTED is empty: every public name is documented. It may only stay so: any
 * undocumented name fails.
 */
const KNOWN_UNDOCUMENTED: string[] = [];

const ROOT = join(__dirname, "..", "..");
const ENTRY = join(ROOT, "dist", "index.d.ts");

/**
 * Undocumented public names of a declaration entry, as `Name` or `Declarer.member`, with their
 * file relative to `base`. Only declarations under the entry's folder count as ours.
 */
function undocumented(entry: string, base = ROOT): Map<string, string> {
  const program = ts.createProgram([entry], { strict: true, types: [], skipLibCheck: true, noEmit: true });
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  const docOf = (symbol: ts.Symbol) =>
    ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
  const ours = (node: ts.Node) => node.getSourceFile().fileName.startsWith(dirname(entry) + sep);
  const missing = new Map<string, string>();
  const note = (name: string, node: ts.Node) =>
    missing.set(name, relative(base, node.getSourceFile().fileName));

  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const declaration = symbol.declarations![0];
    if (!docOf(symbol)) note(exported.name, declaration);
    if (!(symbol.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface))) continue;
    for (const member of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))) {
      const memberDeclaration = member.declarations?.[0];
      // Members inherited from @pulumi/pulumi or Error are documented (or not) there.
      if (!memberDeclaration || !ours(memberDeclaration)) continue;
      if (
        ts.getCombinedModifierFlags(memberDeclaration as ts.Declaration) &
        ts.ModifierFlags.NonPublicAccessibilityModifier
      )
        continue;
      // Named after the class or interface that declares it, so inherited members count once.
      const declarer = (memberDeclaration.parent as ts.NamedDeclaration).name?.getText() ?? exported.name;
      if (!docOf(member)) note(`${declarer}.${member.name}`, memberDeclaration);
    }
  }
  return missing;
}

describe("declarations: every public name carries a doc comment", () => {
  before(function () {
    assert.ok(existsSync(ENTRY), "build first: npm run build (npm test does)");
  });

  it("the root entry's exports and their public members are documented in dist/**/*.d.ts", () => {
    const missing = undocumented(ENTRY);
    const unexpected = [...missing].filter(([name]) => !KNOWN_UNDOCUMENTED.includes(name));
    assert.deepEqual(
      unexpected.map(([name, file]) => `${name} (${file})`),
      [],
      "public names without a doc comment",
    );
    // The exemptions are only for code that is not this test's to change; nothing else is exempt.
    for (const [name, file] of missing) {
      assert.match(
        file,
        /^dist[\\/](api|provider)[\\/]/,
        `${name} is exempt only under src/api or src/provider`,
      );
    }
    const nowDocumented = KNOWN_UNDOCUMENTED.filter((name) => !missing.has(name));
    assert.deepEqual(nowDocumented, [], "documented now: remove from KNOWN_UNDOCUMENTED");
  });

  it("sees a missing comment on an export, a member and an inherited member, and nothing else", () => {
    const dir = mkdtempSync(join(tmpdir(), "dbcloud-docs-"));
    try {
      writeFileSync(
        join(dir, "index.d.ts"),
        [
          "/** Documented. */",
          "export declare class Base {",
          "  /** Documented. */",
          "  a: string;",
          "  b: number;",
          "  private c;",
          "}",
          "/** Documented. */",
          "export declare class Sub extends Base {",
          "  /** Documented. */",
          "  d: string;",
          "}",
          "export interface Bare {",
          "  /** Documented. */",
          "  x: string;",
          "  y: string;",
          "}",
          "/** Documented. */",
          "export declare const ok = 1;",
          "export declare function bare(): void;",
        ].join("\n"),
      );
      assert.deepEqual([...undocumented(join(dir, "index.d.ts"), dir)].sort(), [
        ["Bare", "index.d.ts"],
        ["Bare.y", "index.d.ts"],
        ["Base.b", "index.d.ts"],
        ["bare", "index.d.ts"],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
