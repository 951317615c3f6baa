// Tests of scripts/kit-names (the web kit's undefined-name and unused-import check), run as the
// Makefile runs it, on small sources written to a temporary folder:
//   node --test tests/kit-unit/
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(new URL("../../scripts/kit-names", import.meta.url));
let folder;
before(() => {
  folder = mkdtempSync(join(tmpdir(), "kit-names-test-"));
});
after(() => rmSync(folder, { recursive: true, force: true }));

let count = 0;
/** Writes `source` to a file of its own and runs the check on it: {status, lines, stdout, stderr, file}. */
function check(source) {
  count += 1;
  const file = join(folder, `fixture-${count}.js`);
  writeFileSync(file, source);
  const run = spawnSync(process.execPath, [SCRIPT, file], { encoding: "utf8" });
  const lines = run.stdout.split("\n").filter((line) => line.startsWith(`${file}:`)).map((line) => line.slice(file.length + 1));
  return { status: run.status, lines, stdout: run.stdout, stderr: run.stderr, file };
}

/** The check finds exactly `expected` (lines without the file name) and exits 1, or nothing and 0. */
function expectFindings(source, expected) {
  const result = check(source);
  assert.deepEqual(result.lines, expected, result.stdout + result.stderr);
  assert.equal(result.status, expected.length ? 1 : 0, result.stderr);
  return result;
}

describe("scripts/kit-names", () => {
  test("is an executable node script", () => {
    assert.ok(statSync(SCRIPT).mode & 0o111, "executable");
    const run = spawnSync(SCRIPT, [], { encoding: "utf8" });
    assert.equal(run.status, 2, "no file given is a usage error");
    assert.match(run.stderr, /usage/u);
  });

  test("an undefined name is found, with its line and column", () => {
    expectFindings('const greeting = "hi";\nexport function say() {\n  return greting + "!";\n}\n',
      ["3:10: 'greting' is not defined"]);
  });

  test("nothing found: exit 0 and a one-line summary", () => {
    const result = expectFindings("export const x = 1;\n", []);
    assert.match(result.stdout, /^kit-names: 1 file, no undefined name, no unused import/u);
  });

  test("hoisted functions and vars are not reported, nor a use before a later declaration", () => {
    expectFindings(`
      run();
      function run() {
        if (Math.random() > 2) { var late = 1; }
        return late + helper() + later + arguments.length;
      }
      function helper() { return inner(); function inner() { return 1; } }
      const later = () => last;
      let last = 2;
    `, []);
  });

  test("block scopes: a let, const or class in a block is not seen outside it", () => {
    expectFindings(`
      if (globalThis.x) { let inside = 1; const also = 2; class Shape {} inside; also; Shape; }
      export const y = [inside, Shape];
    `, ["3:25: 'inside' is not defined", "3:33: 'Shape' is not defined"]);
  });

  test("a shorthand property is a reference; reported when undefined", () => {
    expectFindings("const known = 1;\nexport const o = { known, unknown };\n", ["2:27: 'unknown' is not defined"]);
  });

  test("member properties and object keys are not references; computed ones are", () => {
    expectFindings(`const o = { notAVariable: 1, method() { return this.alsoNot; }, [missingKey]: 2 };
o.someProperty.deeper = o?.another?.[missingIndex];
export { o };
`, ["1:66: 'missingKey' is not defined", "2:38: 'missingIndex' is not defined"]);
  });

  test("destructured parameters (with defaults and rest) are declared; a default's free name is not", () => {
    expectFindings(`
export function f({ a, b: { c }, d = a, ...rest }, [e, , g = fallback] = [], ...others) {
  return [a, c, d, rest, e, g, others];
}
export const arrow = ({ p }, [q]) => p + q;
`, ["2:62: 'fallback' is not defined"]);
  });

  test("catch parameters, for-loop heads, labels and switch cases", () => {
    expectFindings(`
outer: for (const [key, value] of Object.entries({})) {
  for (let i = 0; i < 3; i += 1) { if (i === key) continue outer; }
  try { value(); } catch ({ message }) { message; } finally { key; }
  switch (key) { case "a": { const inCase = 1; inCase; break; } default: break outer; }
}
export const after = i;
`, ["7:22: 'i' is not defined"]);
  });

  test("classes: their own name inside, methods and fields by name, computed members and extends as references", () => {
    expectFindings(`
export class Box extends Base {
  static count = 0;
  #secret = 1;
  [dynamicName] = 2;
  field = Box.count;
  method() { return this.#secret + Box.count; }
  static { var local = 1; local; }
}
`, ["2:26: 'Base' is not defined", "5:4: 'dynamicName' is not defined"]);
  });

  test("assignment targets are references: a plain assignment and a destructuring one", () => {
    expectFindings("let a = 1;\n[a, typo] = [2, 3];\n({ key: other } = {});\nundeclared += 1;\n",
      ["2:5: 'typo' is not defined", "3:9: 'other' is not defined", "4:1: 'undeclared' is not defined"]);
  });

  test("the known globals are allowed, the window's short names (name, event, status) are not", () => {
    expectFindings("document.title = JSON.stringify(navigator.language);\nexport const n = [name, event, status];\n",
      ["2:19: 'name' is not defined", "2:25: 'event' is not defined", "2:32: 'status' is not defined"]);
  });

  test("an unused import is reported; an import used, re-exported or used in a closure is not", () => {
    expectFindings(`import usedDefault, { used, reExported, unused as alias } from "./x.js";
import * as spaceUsed from "./y.js";
import * as spaceUnused from "./z.js";
export { reExported };
export const f = () => [usedDefault, used, spaceUsed.member];
`, ["1:51: 'alias' is imported but never used", "3:13: 'spaceUnused' is imported but never used"]);
  });

  test("an import shadowed by a local is still unused", () => {
    expectFindings('import { shadowed } from "./x.js";\nexport function f(shadowed) { return shadowed; }\n',
      ["1:10: 'shadowed' is imported but never used"]);
  });

  test("export specifiers reference local names; export ... from does not", () => {
    expectFindings('const here = 1;\nexport { here, gone as alias };\nexport { elsewhere } from "./x.js";\nexport * from "./y.js";\n',
      ["2:16: 'gone' is not defined"]);
  });

  test("import.meta and new.target are no names", () => {
    expectFindings("export const u = new URL('x', import.meta.url);\nexport function F() { return new.target; }\n", []);
  });

  test("a file that does not parse is a finding", () => {
    const result = check("const = 1;\n");
    assert.equal(result.status, 1);
    assert.match(result.lines[0], /^1:7: parse error: /u);
  });

  test("the shipped bug: a /** swallows a const up to the next comment's */, and its use is reported", () => {
    const good = `// The choices a person has.
const CHOICES = ["apple", "google"];

/** Whether a choice is one of them. */
export function known(choice) {
  return CHOICES.includes(choice);
}
`;
    expectFindings(good, []);
    const broken = good.replace("// The choices a person has.", "/** The choices a person has.");
    assert.notEqual(broken, good);
    expectFindings(broken, ["6:10: 'CHOICES' is not defined"]);
  });

  test("several files: findings from each, file-named", () => {
    const a = check("export const a = missingA;\n").file;
    const b = check("export const b = missingB;\n").file;
    const run = spawnSync(process.execPath, [SCRIPT, a, b], { encoding: "utf8" });
    assert.equal(run.status, 1);
    assert.deepEqual(run.stdout.trim().split("\n"), [`${a}:1:18: 'missingA' is not defined`, `${b}:1:18: 'missingB' is not defined`]);
  });
});

describe("the kit itself", () => {
  test("frontdoor.js and signin.js have no undefined name and no unused import", () => {
    const files = ["frontdoor.js", "signin.js"].map((name) => fileURLToPath(new URL(`../../kits/web/${name}`, import.meta.url)));
    const run = spawnSync(process.execPath, [SCRIPT, ...files], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stdout + run.stderr);
  });
});
