// drive.mjs — drives folio's MCP server with the protocol's official
// TypeScript SDK client (@modelcontextprotocol/sdk, pinned in
// package-lock.json) and prints one JSON object of what it saw, for
// tests/mcp/test_mcp.py to assert. The SDK validates every response
// against the specification's schemas (zod); a malformed one throws.
//
//   node drive.mjs stdio FOLIO OUTDIR [folio mcp options...]
//   node drive.mjs http URL TOKEN OUTDIR
//   node drive.mjs bench-stdio FOLIO N | bench-http URL TOKEN N
//   node drive.mjs bench-rest BASE TOKEN N   (POST /v1/sessions/{id}/exec, for comparison)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const [mode, ...rest] = process.argv.slice(2);

function transportFor() {
  if (mode === "stdio" || mode === "bench-stdio") {
    const [folio, , ...opts] = rest;
    return new StdioClientTransport({ command: folio, args: ["mcp", ...(mode === "stdio" ? opts : [])],
                                      env: process.env, stderr: "inherit" });
  }
  const [url, token] = rest;
  return new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
}

const texts = (r) => (r.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
const summary = (r) => ({ isError: !!r.isError, text: texts(r),
                          types: (r.content || []).map((c) => c.type),
                          links: (r.content || []).filter((c) => c.type === "resource_link").map((c) => c.uri),
                          structured: r.structuredContent ?? null });

const SALES = "region,revenue\nNorth,120\nSouth,80\nEast,100\n";
const SPEC_CELL = `
import json
spec = {"folio": 1, "title": "Sales",
        "data": {"d": {"columns": [{"name": "region", "type": "text"}, {"name": "revenue", "type": "number"}],
                       "rows": [[r, int(v)] for r, v in zip(df.region, df.revenue)] + [["Total", int(total)]]}},
        "blocks": [{"type": "heading", "text": "Sales"}, {"type": "table", "data": "d"}]}
json.dump(spec, open("/out/result.json", "w"))
`;

async function scenario(client, out) {
  const seen = { errors: [] };
  client.onerror = (e) => seen.errors.push(String(e && e.message || e));
  seen.server = client.getServerVersion();
  seen.instructions = client.getInstructions();
  seen.tools = (await client.listTools()).tools;
  const call = (name, args, opts) => client.callTool({ name, arguments: args }, undefined, opts);

  // a three-call analysis: each call uses what the one before defined
  seen.put = summary(await call("put_file", { path: "sales.csv", text: SALES }));
  seen.a1 = summary(await call("run_python", { code: "import pandas as pd\ndf = pd.read_csv('sales.csv')\ndf" }));
  seen.a2 = summary(await call("run_python", { code: "total = df.revenue.sum()\nprint('total', total)" }));
  seen.a3 = summary(await call("run_python", { code: "total * 2" }));
  seen.error = summary(await call("run_python", { code: "1/0" }));

  // a figure comes back as an image
  const fig = await call("run_python", { code: "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\nplt.plot([1, 2, 3])" });
  const img = (fig.content || []).find((c) => c.type === "image");
  seen.figure = { isError: !!fig.isError, mime: img && img.mimeType,
                  png: img ? Buffer.from(img.data, "base64").subarray(1, 4).toString() : null };

  // a spec, validated, rendered, and the file read back as a resource
  seen.spec = summary(await call("run_python", { code: SPEC_CELL }));
  seen.valid = summary(await call("validate_spec", {}));
  seen.invalid = summary(await call("validate_spec", { spec: { folio: 1, blocks: [{ type: "tabel" }] } }));
  seen.render = summary(await call("render", { formats: ["xlsx", "pdf"] }));
  const xlsx = seen.render.links.find((u) => u.endsWith(".xlsx"));
  if (xlsx) {
    const res = await client.readResource({ uri: xlsx });
    const c = res.contents[0];
    writeFileSync(join(out, "result.xlsx"), Buffer.from(c.blob, "base64"));
    seen.render_mime = c.mimeType;
  }
  seen.embedded = summary(await call("render", { formats: ["pdf"], embed: true }));
  seen.list = summary(await call("list_files", {}));
  seen.resources = (await client.listResources()).resources.map((r) => r.uri);
  seen.get_text = summary(await call("get_file", { path: "sales.csv" }));
  seen.get_text_body = (await call("get_file", { path: "sales.csv" })).content[0].resource.text;

  // hostile arguments: nothing leaves the session's folders or its ceiling
  seen.escape_put = summary(await call("put_file", { path: "../../etc/folio-escape", text: "x" }));
  seen.escape_get = summary(await call("get_file", { path: "../../../etc/passwd" }));
  seen.escape_uri = await client.readResource({ uri: "folio://work/../../etc/passwd" })
    .then(() => "read", (e) => String(e.message));
  seen.oversize = summary(await call("put_file", { path: "big.bin",
                                                   content_base64: Buffer.alloc(300000, 7).toString("base64") }));
  seen.bad_b64 = summary(await call("put_file", { path: "x.bin", content_base64: "!!!!" }));
  seen.unknown_tool = await call("no_such_tool", {}).then((r) => summary(r), (e) => `error: ${e.message}`);
  seen.longer_timeout = summary(await call("run_python", { code: "import time\ntime.sleep(8)\nprint('slept')", timeout: 100 }));

  // progress of a long cell: one notification per line of output, and a heartbeat
  const progress = [];
  seen.progress_call = summary(await call("run_python",
    { code: "import time, sys\nfor i in range(4):\n    print('step', i, flush=True)\n    time.sleep(0.6)" },
    { onprogress: (p) => progress.push(p) }));
  seen.progress = progress;

  // cancellation: the call is abandoned, and the server answers it no more
  const ac = new AbortController();
  const cprog = [];
  const t0 = Date.now();
  const pending = call("run_python", { code: "import time\nx = 'before'\ntime.sleep(3)\nx = 'after'" },
                       { signal: ac.signal, onprogress: (p) => cprog.push(p) });
  setTimeout(() => ac.abort("the user changed their mind"), 1200);
  seen.cancel = await pending.then(() => "answered", (e) => `rejected: ${e.name || ""} ${e.message}`);
  seen.cancel_ms = Date.now() - t0;
  seen.cancel_progress = cprog.length;
  seen.after_cancel = summary(await call("run_python", { code: "x" }));
  await new Promise((r) => setTimeout(r, 500));

  // restart: variables go, files stay
  seen.restart = summary(await call("restart_session", {}));
  seen.after_restart = summary(await call("run_python", { code: "df" }));
  seen.files_kept = summary(await call("run_python", { code: "import os\nprint(sorted(os.listdir('/work')))" }));
  seen.env = summary(await call("environment", {}));
  seen.ping = await client.ping();
  seen.errors_at_end = seen.errors.slice();
  return seen;
}

async function bench(client, n) {
  const times = [];
  await client.callTool({ name: "run_python", arguments: { code: "1+1" } });   // session start
  for (let k = 0; k < n; k++) {
    const t = process.hrtime.bigint();
    const r = await client.callTool({ name: "run_python", arguments: { code: "1+1" } });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (texts(r).split("\n")[0] !== "2") throw new Error("1+1 was " + texts(r));
  }
  times.sort((a, b) => a - b);
  return { n, median_ms: times[Math.floor(n / 2)], min_ms: times[0] };
}

// The same `1+1` through the REST route, from the same process and HTTP stack.
async function benchRest(base, token, n) {
  const h = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
  const made = await (await fetch(`${base}/v1/sessions`, { method: "POST", headers: h, body: "{}" })).json();
  const exec = async () => (await fetch(`${base}/v1/sessions/${made.id}/exec`,
                                        { method: "POST", headers: h, body: JSON.stringify({ code: "1+1" }) })).json();
  const times = [];
  await exec();
  for (let k = 0; k < n; k++) {
    const t = process.hrtime.bigint();
    const r = await exec();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (r.result !== "2") throw new Error("1+1 was " + JSON.stringify(r));
  }
  await fetch(`${base}/v1/sessions/${made.id}`, { method: "DELETE", headers: h });
  times.sort((a, b) => a - b);
  return { n, median_ms: times[Math.floor(n / 2)], min_ms: times[0] };
}

if (mode === "bench-rest") {
  process.stdout.write(JSON.stringify(await benchRest(rest[0], rest[1], Number(rest[2]))) + "\n");
  process.exit(0);
}

const client = new Client({ name: "folio-tests", version: "1.0.0" });
const transport = transportFor();
await client.connect(transport);
let result;
try {
  if (mode.startsWith("bench"))
    result = await bench(client, Number(rest[mode === "bench-stdio" ? 1 : 2]));
  else
    result = await scenario(client, mode === "stdio" ? rest[1] : rest[2]);
  if (mode === "http")
    result.session_id = transport.sessionId;
} finally {
  if (mode === "http" || mode === "bench-http")
    await transport.terminateSession().catch(() => {});
  await client.close();
}
process.stdout.write(JSON.stringify(result) + "\n");
