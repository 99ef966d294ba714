package mcpexpose

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/session"
)

// AfterSeed adds the "mcp" key to a /seed_session answer (contract d.3):
//
//	"mcp": {"server_name": "<instance>", "url_path": "/mcp", "transport": "http",
//	        "headers": {"X-NeMo-Gym-Session-Token": "<token>"}}
//
// appended to a JSON-object answer that has no "mcp" key yet (a
// server-supplied "mcp" key wins; a non-object answer is left alone). The
// token carries the request's rollout session id (session.ID: the seed's
// cookie session), the instance name, and the allow-list of the server's
// AllowedToolsForSeed hook (framework.SeedToolFilter, given body as is) or
// else its AllowedToolsForSession hook (framework.SessionToolFilter, given
// body.JSON(): the bytes received, not an encoding); nil = unrestricted.
// A hook error is returned as is, so the seed fails (a 500, or the status
// of a framework.Error) and no token is issued. Nothing of body is read
// but what the hook reads.
//
// Pass it as host.Options.AfterSeed. It fails before [Door.Attach] and
// when ctx carries no rollout session. It is safe for concurrent use.
func (d *Door) AfterSeed(ctx context.Context, body *framework.SeedBody, result []byte) ([]byte, error) {
	if d.app == nil {
		return nil, errors.New("mcpexpose: the MCP door of instance " + framework.PythonReprString(d.instance) + " is not attached")
	}
	ans, err := framework.ParseJSON(result)
	if err != nil || ans.Kind != framework.KindObject {
		return result, nil
	}
	if _, has := ans.Get(SeedKey); has {
		return result, nil
	}
	sid := session.ID(ctx)
	if sid == "" {
		return nil, errors.New("mcpexpose: /seed_session ran without a rollout session (the session middleware is missing)")
	}
	// The rollout may run on the token alone until /verify brings the cookie
	// back: keep the session for its full lifetime now.
	if err := session.Keep(ctx); err != nil {
		return nil, err
	}
	var tools []string
	if d.filter != nil {
		if tools, err = d.filter(ctx, body); err != nil {
			d.logAttrs(ctx, "AllowedToolsForSession failed: the seed fails and no MCP token is issued", slog.LevelError, "error", err)
			return nil, err
		}
	}
	tok := d.mintToken(sid, d.exposedOnly(tools))
	if _, ok := d.verify(tok); !ok {
		// Cannot happen for a session id of session.NewID: the door accepts
		// every token listing exposed tools (see build).
		return nil, fmt.Errorf("mcpexpose: the MCP session token would not be accepted by its own door "+
			"(%d bytes, limit %d)", len(tok), d.signer.maxLen)
	}
	meta := make([]byte, 0, 256)
	meta = append(meta, `"mcp":{"server_name":`...)
	meta = appendString(meta, d.instance)
	meta = append(meta, `,"url_path":"`+URLPath+`","transport":"http","headers":{"`+TokenHeader+`":`...)
	meta = appendString(meta, tok)
	meta = append(meta, "}}"...)

	out := bytes.TrimRight(result, " \t\r\n")
	out = out[:len(out)-1] // the closing brace
	b := make([]byte, 0, len(out)+len(meta)+2)
	b = append(b, out...)
	if len(ans.Members) > 0 {
		b = append(b, ',')
	}
	b = append(b, meta...)
	return append(b, '}'), nil
}
