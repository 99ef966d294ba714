// One example_mcp_weather rollout the way NeMo's claude_code_agent runs it,
// with the official MCP TypeScript SDK client against a running gymkit:
//
//	node weather.mjs http://127.0.0.1:PORT
//
// seed over HTTP (fetch) -> the "mcp" seed key -> initialize, tools/list,
// tools/call get_weather with the session token header -> /verify with the
// seed's cookie and the call named mcp__example_mcp_weather__get_weather
// -> reward 1.0. Any failure exits non-zero.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const INSTANCE = "example_mcp_weather";
const TOKEN_HEADER = "X-NeMo-Gym-Session-Token";
const SENTENCE = "The weather in Paris is sunny and 72 F.";

const base = process.argv[2];
if (!base) {
  console.error("usage: node weather.mjs <base URL of the example_mcp_weather instance>");
  process.exit(2);
}

function step(msg) {
  console.log(`e2e: ${msg}`);
}

// An MCP client for the seed's metadata, sending extra headers when given.
async function connect(url, headers) {
  const client = new Client({ name: "gymkit-e2e", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport); // initialize + notifications/initialized
  return client;
}

async function main() {
  // 1. Seed over plain HTTP, as the agent does; keep the session cookie.
  const seed = await fetch(`${base}/seed_session`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ verifier_metadata: { expected_city: "Paris" }, _ng_task_index: 0, _ng_rollout_index: 0 }),
  });
  assert.equal(seed.status, 200, `seed status ${seed.status}`);
  const cookies = seed.headers.getSetCookie();
  assert.equal(cookies.length, 1, `seed Set-Cookie: ${cookies}`);
  const cookie = cookies[0].split(";")[0];
  const meta = (await seed.json()).mcp;
  assert.ok(meta, "the seed answer has no mcp key");
  assert.equal(meta.server_name, INSTANCE);
  assert.equal(meta.url_path, "/mcp");
  assert.equal(meta.transport, "http");
  const token = meta.headers?.[TOKEN_HEADER];
  assert.ok(token, "the mcp key has no session token");
  const url = `${base}/${meta.url_path.replace(/^\/+/, "")}`; // claude_code_agent's URL rule
  step(`seeded; MCP at ${url}`);

  // 2. initialize, tools/list, tools/call with the token.
  const client = await connect(url, { [TOKEN_HEADER]: token });
  const info = client.getServerVersion();
  assert.equal(info?.name, INSTANCE, `serverInfo ${JSON.stringify(info)}`);
  assert.ok(client.getServerCapabilities()?.tools, "no tools capability");

  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["get_weather"]);
  const tool = tools[0];
  assert.equal(tool.description, "Get a deterministic weather report for a city.");
  assert.deepEqual(tool.inputSchema.required, ["city"]);
  assert.equal(tool.outputSchema?.type, "object");
  step("tools/list: get_weather");

  // The client validates structuredContent against the outputSchema.
  const res = await client.callTool({ name: "get_weather", arguments: { city: "Paris" } });
  assert.equal(res.isError, false, `get_weather failed: ${JSON.stringify(res)}`);
  assert.deepEqual(res.structuredContent, { weather: SENTENCE });
  assert.deepEqual(res.content, [{ type: "text", text: JSON.stringify({ weather: SENTENCE }) }]);
  step(`tools/call get_weather: ${res.content[0].text}`);

  const missing = await client.callTool({ name: "get_weather", arguments: {} });
  assert.equal(missing.isError, true);
  assert.match(missing.content[0].text, /^HTTP 422 from POST \/get_weather: \[\{"type": "missing", "loc": \["city"\]/);
  const unknown = await client.callTool({ name: "get_time", arguments: {} });
  assert.equal(unknown.content[0].text, "Unknown tool: 'get_time'. Available tools: ['get_weather']");
  await client.close();

  // A client without the token lists the tools but cannot call them.
  const anonymous = await connect(url, {});
  const denied = await anonymous.callTool({ name: "get_weather", arguments: { city: "Paris" } });
  assert.equal(denied.isError, true);
  assert.equal(denied.content[0].text, `Missing ${TOKEN_HEADER} for Gym MCP tool call.`);
  await anonymous.close();
  step("isError answers: 422, unknown tool, missing token");

  // 3. Verify over HTTP with the seed's cookie; the trajectory names the
  // call as Claude Code records it.
  const verify = await fetch(`${base}/verify`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Cookie: cookie },
    body: JSON.stringify({
      responses_create_params: { input: [{ role: "user", content: "Use the get_weather MCP tool for Paris." }] },
      verifier_metadata: { expected_city: "Paris" },
      response: {
        id: "resp_e2e", created_at: 0.0, model: "e2e", object: "response",
        parallel_tool_calls: false, tool_choice: "auto", tools: [],
        output: [
          { type: "function_call", name: `mcp__${INSTANCE}__get_weather`, arguments: '{"city":"Paris"}', call_id: "call_1" },
          { type: "function_call_output", call_id: "call_1", output: res.content[0].text },
          // Python's ResponseOutputMessage requires id (status defaults) and its
          // output_text parts require annotations: without them /verify is a 422.
          {
            id: "msg_1", type: "message", role: "assistant", status: "completed",
            content: [{ type: "output_text", text: SENTENCE, annotations: [] }],
          },
        ],
      },
    }),
  });
  assert.equal(verify.status, 200, `verify status ${verify.status}`);
  const scored = await verify.json();
  assert.equal(scored.tool_call_seen, true, "verify did not see the MCP call in the seed's session");
  assert.equal(scored.reward, 1.0, `reward ${scored.reward}`);
  assert.equal(scored.response.output[0].name, `mcp__${INSTANCE}__get_weather`, "verify must echo the emitted name");
  step("verify: reward 1.0");
}

main().then(
  () => console.log("e2e: PASS"),
  (err) => {
    console.error(`e2e: FAIL: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
