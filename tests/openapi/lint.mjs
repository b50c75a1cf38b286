// lint.mjs FILE — checks an OpenAPI document's structure with Redocly's
// OpenAPI 3.1 type tree (offline): every object where the specification
// allows it, every field one the specification names, every $ref resolved.
// Prints one line per problem, then "problems N"; exits 1 when N > 0.
import { lint, createConfig } from "@redocly/openapi-core";

const config = await createConfig({
  rules: { struct: "error", "no-unresolved-refs": "error", "spec-components-invalid-map-name": "error" },
});
const problems = await lint({ ref: process.argv[2], config });
for (const p of problems)
  console.log(p.ruleId, p.location?.[0]?.pointer ?? "", p.message);
console.log("problems", problems.length);
process.exit(problems.length ? 1 : 0);
