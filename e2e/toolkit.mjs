// math_advanced_calculations served as a toolkit to a general MCP client, with
// bearer auth and a config allow-list, against a running gymkit:
//
//	node toolkit.mjs <base URL> <MCP URL> <API key>
//
// The instance is started with auth.api_keys (the key's SHA-256) and
// mcp.tools: [add, multiply] (run.sh). Checked with the official MCP
// TypeScript SDK client: without the bearer, initialize fails and the door
// answers a JSON 401 with WWW-Authenticate before any MCP processing; with
// it, tools/list is exactly the allow-list, add works, and an excluded tool
// answers as a nonexistent one. Any failure exits non-zero.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [base, url, key] = process.argv.slice(2);
if (!base || !url || !key) {
  console.error("usage: node toolkit.mjs <base URL> <MCP URL> <API key>");
  process.exit(2);
}

function step(msg) {
  console.log(`e2e: toolkit: ${msg}`);
}

async function connect(headers) {
  const client = new Client({ name: "gymkit-e2e-toolkit", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

async function main() {
  // 1. No bearer: the SDK client cannot initialize.
  await assert.rejects(connect({}), (err) => {
    // The SDK's error carries the 401's JSON body (its code is err.code).
    assert.match(String(err), /Missing bearer token/, `the SDK's error: ${err}`);
    if (err.code !== undefined) assert.equal(err.code, 401);
    return true;
  });
  // The answer itself, as any client sees it.
  const init = JSON.stringify({
    jsonrpc: "2.0", id: 1, method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
  for (const [auth, want] of [
    [undefined, { error: "Missing bearer token" }],
    ["Bearer not-a-key", { error: "Invalid or unauthorized token" }],
  ]) {
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    if (auth) headers.Authorization = auth;
    const res = await fetch(url, { method: "POST", headers, body: init });
    assert.equal(res.status, 401);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer/);
    assert.deepEqual(await res.json(), want);
  }
  step("401 JSON without and with a wrong bearer");

  // 2. With the bearer (who calls) and the seed's session token (which
  // rollout: the seed route is HTTP, which auth.http leaves open here), the
  // allow-list governs tools/list and tools/call.
  const seed = await fetch(`${base}/seed_session`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: "{}",
  });
  assert.equal(seed.status, 200);
  const token = (await seed.json()).mcp.headers["X-NeMo-Gym-Session-Token"];
  const client = await connect({ Authorization: `Bearer ${key}`, "X-NeMo-Gym-Session-Token": token });
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["add", "multiply"]);
  step(`tools/list with the bearer: ${tools.map((t) => t.name).join(", ")}`);

  const add = await client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
  assert.equal(add.isError, false, JSON.stringify(add));
  assert.deepEqual(add.structuredContent, { solution: 4.2 }); // the alternate universe's 1 + 2
  step("tools/call add with the bearer and the session token: 4.2");
  const divide = await client.callTool({ name: "divide", arguments: { a: 1, b: 2 } });
  assert.equal(divide.isError, true);
  assert.match(divide.content[0].text, /^Unknown tool: 'divide'\. Available tools: \['add', 'multiply'\]/);
  const none = await client.callTool({ name: "no_such_tool", arguments: {} });
  assert.equal(none.content[0].text.replace("no_such_tool", "divide"), divide.content[0].text);
  step("an excluded tool answers as a nonexistent one");
  await client.close();
  step("PASS");
}

main().catch((err) => {
  console.error(`e2e: toolkit FAILED: ${err?.stack ?? err}`);
  process.exit(1);
});
