// validate.mjs — checks Kubernetes objects against the API's schemas
// (kubernetes-models, generated from Kubernetes' OpenAPI; pinned in
// package-lock.json). Reads a JSON array of objects on stdin; prints one
// JSON line per object: {"kind", "name", "ok", "error"}. Exit 0.
import { readFileSync } from "node:fs";

const docs = JSON.parse(readFileSync(0, "utf8"));
for (const doc of docs) {
  const out = { kind: doc.kind, name: doc.metadata && doc.metadata.name, ok: false, error: null };
  try {
    const group = doc.apiVersion.includes("/") ? doc.apiVersion : doc.apiVersion;
    const mod = await import(`kubernetes-models/${group}/${doc.kind}`);
    const Cls = mod.default || mod[doc.kind];
    new Cls(doc).validate();
    out.ok = true;
  } catch (e) {
    out.error = String(e && e.message ? e.message : e).slice(0, 2000);
  }
  console.log(JSON.stringify(out));
}
