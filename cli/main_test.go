package cli

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/internal/testkit/syncbuf"
)

// runMainEnv makes the test binary act as the gymkit binary (see TestMain):
// the end-to-end test starts it as a child process with this variable set.
const runMainEnv = "GYMKIT_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		// gymkit itself, with the shipped environments and the test-only server type below registered
		if name := os.Getenv(foreignTypeEnv); name != "" {
			framework.Register(name, func() framework.Server { return new(foreignServer) })
		}
		os.Exit(Main(context.Background(), os.Args))
	}
	os.Exit(m.Run())
}

// foreignTypeEnv names a server type that the test binary registers only
// when it runs as gymkit (runMainEnv): the type of an environment of
// another module, which gymkit check --nemo run in process does not know.
const foreignTypeEnv = "GYMKIT_TEST_FOREIGN_TYPE"

// foreignServer is the server type of foreignTypeEnv: Provision fails when
// data_dir does not exist.
type foreignServer struct {
	framework.Base
	DataDir config.Path `koanf:"data_dir"`
	Size    int         `koanf:"size"`
}

func (s *foreignServer) Provision(context.Context) error {
	if _, err := os.Stat(s.DataDir.String()); s.DataDir != "" && err != nil {
		return fmt.Errorf("data_dir: %w", err)
	}
	return nil
}

func (s *foreignServer) Routes(r *framework.Router) {
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

// slowServerType is a test-only server type: its /slow tool writes
// started_file, then waits until release_file exists. It exists only in this
// test binary.
const slowServerType = "gymkit_test_slow"

func init() { framework.Register(slowServerType, func() framework.Server { return new(slowServer) }) }

type slowServer struct {
	framework.Base
	StartedFile string `koanf:"started_file"`
	ReleaseFile string `koanf:"release_file"`
	// With provision_file set, Provision writes it, writes it + ".canceled"
	// once its context is done, and returns once it + ".release" exists.
	ProvisionFile string `koanf:"provision_file"`
}

func (s *slowServer) Provision(ctx context.Context) error {
	if s.ProvisionFile == "" {
		return nil
	}
	if err := os.WriteFile(s.ProvisionFile, nil, 0o644); err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		_ = os.WriteFile(s.ProvisionFile+".canceled", nil, 0o644)
	}()
	for {
		if _, err := os.Stat(s.ProvisionFile + ".release"); err == nil {
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type slowResponse struct {
	Done bool `json:"done"`
}

func (s *slowServer) Routes(r *framework.Router) {
	framework.Post(r, "/slow", s.slow)
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

func (s *slowServer) slow(ctx context.Context, _ framework.NoBody) (slowResponse, error) {
	if err := os.WriteFile(s.StartedFile, nil, 0o644); err != nil {
		return slowResponse{}, err
	}
	for {
		if _, err := os.Stat(s.ReleaseFile); err == nil {
			return slowResponse{Done: true}, nil
		}
		select {
		case <-ctx.Done():
			return slowResponse{}, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// gymkit runs the CLI in process with a context that is already done (so a
// serve that got as far as serving drains at once) and returns its exit
// status, stdout and stderr.
func gymkit(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := Run(ctx, args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// exampleConfig returns the absolute path of a shipped environment's config.
func exampleConfig(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "servers", name, "configs", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// holdPort listens on a free loopback port until the test ends.
func holdPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

func TestParseServeArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		files     []string
		overrides []string
		format    string
		drain     time.Duration
	}{
		{name: "none", args: nil, format: "text", drain: 30 * time.Second},
		{
			name:  "config forms",
			args:  []string{"--config", "a.yaml", "--config=b.yaml", "-c", "c.yaml", "-c=d.yaml", "-config", "e.yaml"},
			files: []string{"a.yaml", "b.yaml", "c.yaml", "d.yaml", "e.yaml"}, format: "text", drain: 30 * time.Second,
		},
		{
			name: "interleaved",
			args: []string{"a.b=1", "--config", "x.yaml", "+c.d=[1, 2]", "--log-format", "json", "++e.f=", "-c", "y.yaml",
				"--drain-timeout=5s", "g.h=k=v"},
			files:     []string{"x.yaml", "y.yaml"},
			overrides: []string{"a.b=1", "+c.d=[1, 2]", "++e.f=", "g.h=k=v"},
			format:    "json", drain: 5 * time.Second,
		},
		{
			name: "after double dash", args: []string{"-c", "x.yaml", "--", "a=1", "+b=2"},
			files: []string{"x.yaml"}, overrides: []string{"a=1", "+b=2"}, format: "text", drain: 30 * time.Second,
		},
		{name: "no drain limit", args: []string{"--drain-timeout", "0"}, format: "text", drain: -1},
		{name: "flag value starting with a dash", args: []string{"--config", "-odd.yaml"}, files: []string{"-odd.yaml"}, format: "text", drain: 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := parseServeArgs(tt.args)
			if err != nil {
				t.Fatalf("parseServeArgs(%q): %v", tt.args, err)
			}
			if !slices.Equal(a.files, tt.files) || !slices.Equal(a.overrides, tt.overrides) || a.logFormat != tt.format || a.drainTimeout != tt.drain {
				t.Errorf("parseServeArgs(%q) = files %q overrides %q format %q drain %v; want %q %q %q %v",
					tt.args, a.files, a.overrides, a.logFormat, a.drainTimeout, tt.files, tt.overrides, tt.format, tt.drain)
			}
		})
	}
}

func TestParseServeArgsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--port", "8000"}, "unknown flag --port"},
		{[]string{"-x=1"}, "unknown flag -x"},
		{[]string{"---config", "a.yaml"}, "unknown flag ---config"},
		{[]string{"--config"}, "flag --config needs a value"},
		{[]string{"-c", ""}, "flag -c needs a file name"},
		{[]string{"-log-format"}, "flag -log-format needs a value"},
		{[]string{"a.yaml"}, `unexpected argument "a.yaml": did you mean --config a.yaml?`},
		{[]string{"-c", "a.yaml", "port"}, `unexpected argument "port": config files are given with --config FILE, overrides have the form key=value`},
		{[]string{"-"}, `unexpected argument "-"`},
		{[]string{"--", "x"}, `argument "x" after --`},
		{[]string{"--log-format", "xml"}, `flag --log-format: "xml" is not a log format`},
		{[]string{"--log-level=loud"}, `flag --log-level: "loud" is not a level`},
		{[]string{"--drain-timeout", "-1s"}, `flag --drain-timeout: "-1s" is not a duration`},
		{[]string{"--drain-timeout", "soon"}, `flag --drain-timeout: "soon" is not a duration`},
		{[]string{"--help=yes"}, "flag --help takes no value"},
	}
	for _, tt := range tests {
		_, err := parseServeArgs(tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseServeArgs(%q) error = %v, want it to contain %q", tt.args, err, tt.want)
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-c", "a.yaml", "x=1", "-help"}} {
		if _, err := parseServeArgs(args); err != errHelp {
			t.Errorf("parseServeArgs(%q) error = %v, want errHelp", args, err)
		}
	}
}

func TestHelpAndUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args      []string
		code      int
		stdoutHas string // "" means stdout must be empty
		stderrHas string // "" means stderr must be empty
	}{
		{args: []string{"--help"}, code: 0, stdoutHas: "Commands:"},
		{args: []string{"-h"}, code: 0, stdoutHas: "Commands:"},
		{args: []string{"help"}, code: 0, stdoutHas: "gymkit help <command>"},
		{args: []string{"help", "serve"}, code: 0, stdoutHas: "Overrides:"},
		{args: []string{"serve", "--help"}, code: 0, stdoutHas: "Config files:"},
		{args: []string{"serve", "-c", "x.yaml", "a=b", "-h"}, code: 0, stdoutHas: "Examples:"},
		{args: nil, code: 2, stderrHas: "Commands:"},
		{args: []string{"srve"}, code: 2, stderrHas: `unknown command "srve"`},
		{args: []string{"help", "srve"}, code: 2, stderrHas: `unknown command "srve"`},
		{args: []string{"serve", "--bogus"}, code: 2, stderrHas: "gymkit serve: unknown flag --bogus\nUsage: gymkit serve --config FILE [--config FILE ...] [flags] [key=value ...]\nRun \"gymkit serve --help\""},
	}
	for _, tt := range tests {
		code, stdout, stderr := gymkit(t, tt.args...)
		if code != tt.code {
			t.Errorf("gymkit %q: exit %d, want %d", tt.args, code, tt.code)
		}
		for _, c := range []struct{ name, got, want string }{{"stdout", stdout, tt.stdoutHas}, {"stderr", stderr, tt.stderrHas}} {
			if (c.want == "" && c.got != "") || !strings.Contains(c.got, c.want) {
				t.Errorf("gymkit %q: %s = %q, want it to contain %q", tt.args, c.name, c.got, c.want)
			}
		}
	}
	// serve without a config file says only that, before loading anything.
	noConfig := "gymkit serve: no --config FILE was given\nUsage: gymkit serve --config FILE [--config FILE ...] [flags] [key=value ...]\nRun \"gymkit serve --help\" for the flags, config files and overrides.\n"
	for _, args := range [][]string{{"serve"}, {"serve", "a.resources_servers.b.port=1"}, {"serve", "--log-level", "debug"}} {
		code, stdout, stderr := gymkit(t, args...)
		if code != 2 || stdout != "" || stderr != noConfig {
			t.Errorf("gymkit %q: exit %d, stdout %q, stderr %q; want exit 2 and only %q", args, code, stdout, stderr, noConfig)
		}
	}
	// The serve help explains both config files and overrides, with examples.
	_, out, _ := gymkit(t, "serve", "--help")
	for _, want := range []string{"--config FILE", "key=value", "+key=value", "++key=value", "env.yaml", "docs/config.md",
		"example_mcp_weather.resources_servers.example_mcp_weather.port=8000", "<instance> http://<host>:<port>"} {
		if !strings.Contains(out, want) {
			t.Errorf("gymkit serve --help does not mention %q", want)
		}
	}
}

// A configuration error exits 2 listing every problem, with file, line, key
// and suggestion, before any port is bound: the held port of the third
// instance would otherwise make it a bind error (exit 1).
func TestServeConfigProblemsExit2(t *testing.T) {
	t.Parallel()
	held := holdPort(t)
	dir := t.TempDir()

	t.Run("server keys and types", func(t *testing.T) {
		t.Parallel()
		cfg := writeFile(t, dir, "decode.yaml", `weather:
  resources_servers:
    example_mcp_weather:
      domain: agent
      expose_tool_over_mcp: true
counter:
  resources_servers:
    example_session_state_mgmt_typo:
      domain: other
slow:
  resources_servers:
    `+slowServerType+`:
      domain: other
      port: `+strconv.Itoa(held)+`
      release_fil: x
`)
		code, stdout, stderr := gymkit(t, "serve", "--config", cfg)
		if code != 2 || stdout != "" {
			t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and no ready line", code, stdout, stderr)
		}
		for _, want := range []string{
			"config: 3 problems:",
			cfg + ":8: counter.resources_servers.example_session_state_mgmt_typo: unknown server type \"example_session_state_mgmt_typo\" (registered: ",
			`); blank-import the package that calls framework.Register("example_session_state_mgmt_typo", ...) in your main package (e.g. _ "example.com/myenvs/servers/example_session_state_mgmt_typo")`,
			cfg + ":15: slow.resources_servers." + slowServerType + ".release_fil: unknown key; did you mean `release_file`?",
			cfg + ":5: weather.resources_servers.example_mcp_weather.expose_tool_over_mcp: unknown key; did you mean `expose_tools_over_mcp`?",
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr does not contain %q:\n%s", want, stderr)
			}
		}
		registered := regexp.MustCompile(`unknown server type .*\(registered: (.*)\); blank-import`).FindStringSubmatch(stderr)
		if registered == nil || !strings.Contains(registered[1], "example_mcp_weather") || !strings.Contains(registered[1], slowServerType) {
			t.Errorf("the unknown server type problem does not list the registered types:\n%s", stderr)
		}
	})

	t.Run("framework keys and overrides", func(t *testing.T) {
		t.Parallel()
		cfg := writeFile(t, dir, "load.yaml", `weather:
  resources_servers:
    example_mcp_weather:
      domain: agnet
      hots: 127.0.0.1
      port: `+strconv.Itoa(held)+`
`)
		code, stdout, stderr := gymkit(t, "serve", "weather.resources_servers.example_mcp_weather.max_body_bytes=lots", "-c", cfg)
		if code != 2 || stdout != "" {
			t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and no ready line", code, stdout, stderr)
		}
		for _, want := range []string{
			"config: 3 problems:",
			cfg + `:4: weather.resources_servers.example_mcp_weather.domain: unknown domain "agnet"`,
			cfg + ":5: weather.resources_servers.example_mcp_weather.hots: unknown key; did you mean `host`?",
			"did you mean `agent`?",
			`command line: weather.resources_servers.example_mcp_weather.max_body_bytes: expected an integer, got string "lots"`,
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr does not contain %q:\n%s", want, stderr)
			}
		}
	})

	t.Run("no config", func(t *testing.T) {
		t.Parallel()
		code, _, stderr := gymkit(t, "serve", "--config", filepath.Join(dir, "missing.yaml"))
		if code != 2 || !strings.Contains(stderr, "missing.yaml") {
			t.Errorf("exit %d, stderr:\n%s\nwant exit 2 naming the file", code, stderr)
		}
	})
}

// A port already in use is an error exit (1) with one error line naming
// the instance, the port and the host (beside the instance's log records).
func TestServeBindFailureExit1(t *testing.T) {
	t.Parallel()
	port := holdPort(t)
	code, stdout, stderr := gymkit(t, "serve", "-c", exampleConfig(t, "example_mcp_weather"),
		"example_mcp_weather.resources_servers.example_mcp_weather.port="+strconv.Itoa(port))
	want := "\ngymkit serve: instance \"example_mcp_weather\": port " + strconv.Itoa(port) + " on 127.0.0.1 is already in use; "
	if code != 1 || stdout != "" || !strings.Contains(stderr, want) || strings.Count(stderr, "gymkit serve:") != 1 {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 1 and %q", code, stdout, stderr, want)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer = syncbuf.Buffer

// readyLine matches "<instance> <url>" with, for an instance that exposes its
// tools over MCP, " mcp=<url>/mcp" (group 4).
var readyLine = regexp.MustCompile(`^(\S+) (http://127\.0\.0\.1:(\d+))( mcp=http://127\.0\.0\.1:\d+/mcp)?$`)
