package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An instance name is the end of the session cookie's name, so one that is no HTTP token is
// refused as a config problem at its line, by every command that builds the instance, never a
// panic (session.NewManager used to panic on such a cookie name).
func TestInstanceNameNotACookieToken(t *testing.T) {
	names := []string{"météo", "a b", "a:b", "a,b", "a;b", "a=b", "a@b", "a/b", "a(b)", "a?b", "a{b}", `a\b`, `a"b`, "日本", "a\x1bb"}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := writeFile(t, dir, "c.yaml", "x: 1\n"+strconv.Quote(name)+":\n  resources_servers:\n    example_mcp_weather: {domain: agent}\n")
			r, _ := firstNonTokenRune(name)
			want := fmt.Sprintf("%s:2: %s: an instance name must be an HTTP token, since it ends the name of the session cookie, %q: "+
				"use ASCII letters, digits and !#$%%&'*+-.^_`|~; %s is not one (NeMo's agents drop such a cookie too, and lose the rollout's session)",
				cfg, shownKey(name), "example_mcp_weather___"+name, strconv.QuoteRune(r))
			for _, cmd := range [][]string{{"serve", "--config", cfg}, {"check", "--config", cfg}, {"tools", "--config", cfg}} {
				code, stdout, stderr := gymkit(t, cmd...)
				out := stdout + stderr
				if code != 2 || !strings.Contains(out, want+"\n") || strings.Contains(out, "panic") || strings.ContainsRune(out, 0x1b) {
					t.Errorf("gymkit %s: exit %d, output:\n%s\nwant exit 2 and the line\n%s", cmd[0], code, out, want)
				}
			}
		})
	}
	t.Run("serve --nemo", func(t *testing.T) {
		t.Setenv(envConfigDict, "\"météo\":\n  resources_servers:\n    example_mcp_weather: {domain: agent}\n")
		t.Setenv(envConfigPath, "météo")
		code, stdout, stderr := gymkit(t, "serve", "--nemo")
		want := `gymkit serve: config: NEMO_GYM_CONFIG_DICT:1: météo: an instance name must be an HTTP token, since it ends the name of the session cookie, "example_mcp_weather___météo": ` +
			"use ASCII letters, digits and !#$%&'*+-.^_`|~; 'é' is not one (NeMo's agents drop such a cookie too, and lose the rollout's session)\n"
		if code != 2 || stdout != "" || stderr != want {
			t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and:\n%s", code, stdout, stderr, want)
		}
	})
}

// firstNonTokenRune is the first rune of s that an HTTP token cannot hold.
func firstNonTokenRune(s string) (rune, bool) {
	for _, r := range s {
		if r >= 0x80 || !strings.ContainsRune("!#$%&'*+-.^_`|~", r) && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return r, true
		}
	}
	return 0, false
}

// shownKey is a key as a problem shows it: quoted when it holds a space or a rune that is not
// printable.
func shownKey(k string) string {
	if strings.ContainsAny(k, " \x1b") {
		return strconv.Quote(k)
	}
	return k
}

// bomb is a config whose interpolations stand for far more than they hold.
type bomb struct {
	name string
	yaml string // the lines before the instance block
	ref  string // the instance's description: the bomb's top, or "" (unreferenced)
	want string // the problem, after "<file>:"
}

func bombs() []bomb {
	var dbl, maps, lists, chain, fan strings.Builder
	dbl.WriteString("x0: ab\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&dbl, "x%d: ${x%d}${x%d}\n", i, i-1, i-1)
	}
	maps.WriteString("m0: {a: 1}\n")
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&maps, "m%d:\n  l: ${m%d}\n  r: ${m%d}\n", i, i-1, i-1)
	}
	lists.WriteString("l0: [1]\n")
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&lists, "l%d: ['${l%d}', '${l%d}']\n", i, i-1, i-1)
	}
	chain.WriteString("c0: end\n")
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&chain, "c%d: ${c%d}\n", i, i-1)
	}
	fan.WriteString("big: " + strings.Repeat("b", 1<<20) + "\n")
	for i := range 40 {
		fmt.Fprintf(&fan, "f%d: ${big}\n", i)
	}
	const steps = "interpolation takes more than 250000 steps in this configuration (each ${...} and each value a reference copies is one; see docs/config.md, Interpolation)"
	const text = "interpolation produces more than 16 MiB of text in this configuration (its references copy what they name each time; see docs/config.md, Interpolation)"
	return []bomb{
		{"string doubling", dbl.String(), "${x40}", "24: x23: " + text},
		{"string doubling, unreferenced", dbl.String(), "", "24: x23: " + text},
		{"mapping doubling", maps.String(), "${m60}", "48: m16.l: " + steps},
		{"list doubling", lists.String(), "${l60}", "17: l16[0]: " + steps},
		{"a long chain of references", chain.String(), "${c500}", "402: c401: ${c400}: references nest more than 100 deep (a value naming a value naming ...; see docs/config.md, Interpolation)"},
		{"one large string referenced many times", fan.String(), "${f0}${f1}${f2}${f3}${f4}${f5}${f6}${f7}${f8}${f9}${f10}${f11}${f12}${f13}${f14}${f15}${f16}${f17}",
			"10: f8: " + text},
	}
}

// Interpolation is bounded in the text it produces, its steps and the nesting of references:
// each bomb is refused quickly, as a problem at the key's line, with bounded memory, by every
// command that reads the config (the unreferenced ones by those that resolve the whole tree:
// gymkit config and check --nemo), and through NEMO_GYM_CONFIG_DICT.
func TestInterpolationBombs(t *testing.T) {
	for _, b := range bombs() {
		t.Run(b.name, func(t *testing.T) {
			dir := t.TempDir()
			text := b.yaml + "w:\n  resources_servers:\n    example_mcp_weather:\n      domain: agent\n"
			if b.ref != "" {
				text += "      description: " + b.ref + "\n"
			}
			cfg := writeFile(t, dir, "c.yaml", text)
			cmds := [][]string{{"config", "--config", cfg}}
			if b.ref != "" {
				cmds = append(cmds, []string{"serve", "--config", cfg}, []string{"check", "--config", cfg})
			}
			for _, cmd := range cmds {
				out, alloc, took := measured(t, 2, cmd...)
				if !strings.Contains(out, cfg+":"+b.want+"\n") {
					t.Errorf("gymkit %s: output:\n%.2000s\nwant the line\n%s:%s", strings.Join(cmd[:2], " "), out, cfg, b.want)
				}
				if alloc > 192<<20 || took > 20*time.Second {
					t.Errorf("gymkit %s: allocated %d MiB in %v, want at most 192 MiB", strings.Join(cmd[:2], " "), alloc>>20, took)
				}
			}
			// check --nemo: a finding (exit 1), however the rest of the config fares.
			out, alloc, _ := measured(t, 1, "check", "--nemo", cfg)
			if !strings.Contains(out, "\tconfig: ") || !strings.Contains(out, cfg+":"+b.want+"\n") || alloc > 192<<20 {
				t.Errorf("gymkit check --nemo: allocated %d MiB, output:\n%.3000s\nwant the config finding\n%s:%s", alloc>>20, out, cfg, b.want)
			}
			if b.ref != "" {
				t.Setenv(envConfigDict, text)
				t.Setenv(envConfigPath, "w")
				out, alloc, _ := measured(t, 2, "serve", "--nemo")
				if !strings.Contains(out, "NEMO_GYM_CONFIG_DICT:"+b.want+"\n") || alloc > 192<<20 {
					t.Errorf("gymkit serve --nemo: allocated %d MiB, output:\n%.2000s\nwant the line\nNEMO_GYM_CONFIG_DICT:%s", alloc>>20, out, b.want)
				}
			}
		})
	}
}

// measured runs gymkit as [gymkit] does, checks that it exits with code, and returns its
// output (stdout then stderr), the bytes it allocated and how long it took.
func measured(t *testing.T, code int, args ...string) (string, uint64, time.Duration) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	got, stdout, stderr := gymkit(t, args...)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if got != code {
		t.Errorf("gymkit %s: exit %d, want %d", strings.Join(args, " "), got, code)
	}
	t.Logf("gymkit %s: %.1f MiB allocated in %v", strings.Join(args[:min(2, len(args))], " "), float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), took.Round(time.Millisecond))
	return stdout + stderr, after.TotalAlloc - before.TotalAlloc, took
}

// A config is read within bounds: at most config.MaxConfigBytes, nested at most
// config.MaxConfigDepth levels (checked before koanf flattens the tree, which costs the square
// of the depth), one YAML document, no null key; an override's key and value are nested no
// deeper. Each refusal is one problem, found quickly with little memory.
func TestConfigReadBounds(t *testing.T) {
	dir := t.TempDir()
	weather := "w:\n  resources_servers:\n    example_mcp_weather: {domain: agent}\n"
	deep := weather + "d: " + strings.Repeat("{a: ", 9990) + "1" + strings.Repeat("}", 9990) + "\n"
	big := writeFile(t, dir, "big.yaml", weather+"pad: "+strings.Repeat("x", 16<<20)+"\n")
	tests := []struct {
		name string
		args []string
		want string // a line of the output
	}{
		{"nested 9,990 levels", []string{"check", "--config", writeFile(t, dir, "deep.yaml", deep)},
			dir + "/deep.yaml:4: mappings and lists are nested more than 200 levels deep here (level 201): a config is not that deep"},
		{"nested 201 levels in a list", []string{"check", "--config", writeFile(t, dir, "deep201.yaml", weather+"d: "+strings.Repeat("[", 200)+strings.Repeat("]", 200)+"\n")},
			dir + "/deep201.yaml:4: mappings and lists are nested more than 200 levels deep here (level 201): a config is not that deep"},
		{"larger than 16 MiB", []string{"check", "--config", big}, big + ": is larger than 16 MiB (the largest config gymkit reads)"},
		{"/dev/zero", []string{"check", "--config", "/dev/zero"}, "/dev/zero: is larger than 16 MiB (the largest config gymkit reads)"},
		{"two documents", []string{"check", "--config", writeFile(t, dir, "two.yaml", weather+"---\nx: 1\n")},
			dir + "/two.yaml:4: a second YAML document starts here (---): a config file holds one document, as NeMo reads it; merge them, or give each its own file"},
		{"a null key", []string{"check", "--config", writeFile(t, dir, "null.yaml", weather+"null: x\n")},
			dir + `/null.yaml:4: a key is null (null, ~ or nothing before the colon): quote it, "null", if it is the text`},
		{"a null key in a block", []string{"check", "--config", writeFile(t, dir, "null2.yaml", "w:\n  resources_servers:\n    example_mcp_weather:\n      domain: agent\n      ~: 3\n")},
			dir + `/null2.yaml:5: a key is null (null, ~ or nothing before the colon): quote it, "null", if it is the text`},
		{"an override key 201 deep", []string{"check", "--config", writeFile(t, dir, "w.yaml", weather), "x" + strings.Repeat(".a", 200) + "=1"},
			"the key has 201 segments: a config is nested at most 200 levels deep"},
		{"an override value 201 deep", []string{"check", "--config", dir + "/w.yaml", "x=" + strings.Repeat("[", 201) + strings.Repeat("]", 201)},
			"line 1: mappings and lists are nested more than 200 levels deep here (level 201): a config is not that deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, alloc, took := measured(t, 2, tt.args...)
			if !strings.Contains(out, tt.want) || alloc > 96<<20 || took > 10*time.Second {
				t.Errorf("allocated %d MiB in %v, output:\n%.1000s\nwant at most 96 MiB and:\n%s", alloc>>20, took, out, tt.want)
			}
		})
	}
	t.Run("a dict nested 9,990 levels, serve --nemo", func(t *testing.T) {
		t.Setenv(envConfigDict, deep)
		t.Setenv(envConfigPath, "w")
		out, alloc, took := measured(t, 2, "serve", "--nemo")
		want := "gymkit serve: config: NEMO_GYM_CONFIG_DICT:4: mappings and lists are nested more than 200 levels deep here (level 201): a config is not that deep\n"
		if out != want || alloc > 32<<20 || took > 5*time.Second {
			t.Errorf("allocated %d MiB in %v, output:\n%s\nwant at most 32 MiB and:\n%s", alloc>>20, took, out, want)
		}
	})
}

// A server's data files are read within a bound (config.Path.Open): workplace_assistant's
// tools_file naming a device, a FIFO or a folder is refused at once instead of read forever.
func TestDataFileBounds(t *testing.T) {
	dir := t.TempDir()
	fifo := dir + "/fifo"
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := exampleConfig(t, "workplace_assistant")
	key := "workplace_assistant.resources_servers.workplace_assistant.tools_file="
	for _, tc := range []struct{ file, kind string }{{"/dev/zero", "a device"}, {fifo, "a FIFO"}, {dir, "a folder"}} {
		t.Run(tc.kind, func(t *testing.T) {
			start := time.Now()
			code, stdout, stderr := gymkit(t, "check", "--config", cfg, key+tc.file)
			want := fmt.Sprintf("provision: tools_file %s: %s: not a regular file (%s)\n", tc.file, tc.file, tc.kind)
			if code != 1 || !strings.HasSuffix(stdout+stderr, want) || time.Since(start) > 10*time.Second {
				t.Errorf("exit %d after %v, output:\n%s\nwant exit 1 and the end\n%s", code, time.Since(start), stdout+stderr, want)
			}
		})
	}
}

// What a new user tries, each answered with one clear problem (exit 2) naming the key's line.
func TestConfigEdgeCases(t *testing.T) {
	dir := t.TempDir()
	block := func(keys string) string {
		return "w:\n  resources_servers:\n    example_mcp_weather: {domain: agent, " + keys + "}\n"
	}
	tests := []struct {
		name string
		yaml string
		want string // the problem after "<file>:"
	}{
		{"a bracketed IPv6 host", block(`host: "[::1]"`),
			"3: w.resources_servers.example_mcp_weather.host: \"[::1]\": write an IPv6 address without brackets (the URLs gymkit prints add them); did you mean `::1`?"},
		{"a host with a port", block(`host: "127.0.0.1:80"`),
			"3: w.resources_servers.example_mcp_weather.host: \"127.0.0.1:80\" holds a port: the host is \"127.0.0.1\", the port goes in port (80); did you mean `127.0.0.1`?"},
		{"a host with a space", block(`host: "a b"`), `3: w.resources_servers.example_mcp_weather.host: "a b" is not a host name or an IP address`},
		{"a default_host with a port", "default_host: 'localhost:8000'\n" + block(""),
			"1: default_host: \"localhost:8000\" holds a port: the host is \"localhost\", the port goes in port (8000); did you mean `localhost`?"},
		{"an address of another machine", block("host: 192.0.2.1"),
			"3: w.resources_servers.example_mcp_weather.host: cannot listen on host 192.0.2.1: listen tcp 192.0.2.1:"},
		{"a host name that does not resolve", block("host: nonexistent.invalid"),
			"3: w.resources_servers.example_mcp_weather.host: cannot listen on host nonexistent.invalid: listen tcp: lookup nonexistent.invalid"},
		{"mcp.tools: [null]", block("mcp: {tools: [null]}"), "3: w.resources_servers.example_mcp_weather.mcp.tools[0]: must be a tool name, got null"},
		{"a control byte in a key", block(`"k\e[0m": 1`), `3: "w.resources_servers.example_mcp_weather.k\x1b[0m": unknown key`},
		{"a control byte in a near miss", "\"port_range_lo\\a\": 3\n" + block(""), "1: \"port_range_lo\\a\": unknown top-level key: not a setting gymkit reads; did you mean `port_range_low`?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := writeFile(t, dir, "c.yaml", tt.yaml)
			code, stdout, stderr := gymkit(t, "serve", "--config", cfg)
			if code != 2 || !strings.Contains(stderr, cfg+":"+tt.want) || strings.Contains(stdout+stderr, "no free port") || strings.ContainsRune(stdout+stderr, 0x1b) {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and\n%s:%s", code, stdout, stderr, cfg, tt.want)
			}
		})
	}
	t.Run("NEMO_GYM_CONFIG_DICT with two documents", func(t *testing.T) {
		t.Setenv(envConfigDict, block("")+"---\nw:\n  resources_servers:\n    example_mcp_weather: {domain: math}\n")
		t.Setenv(envConfigPath, "w")
		code, stdout, stderr := gymkit(t, "serve", "--nemo")
		want := "gymkit serve: config: NEMO_GYM_CONFIG_DICT:4: a second YAML document starts here (---): a config file holds one document, as NeMo reads it; merge them, or give each its own file\n"
		if code != 2 || stdout != "" || stderr != want {
			t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and:\n%s", code, stdout, stderr, want)
		}
	})
}

// env.yaml is the working directory's, even in a folder named configs: its relative paths
// resolve against the working directory, not against its parent as a server's
// <folder>/configs/<name>.yaml would.
func TestEnvYAMLInAConfigsFolder(t *testing.T) {
	shared, err := filepath.Abs(filepath.Join("..", "..", "shared", "data", "nemo-gym", "workplace_assistant"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := exampleConfig(t, "workplace_assistant")
	wd := filepath.Join(t.TempDir(), "configs")
	if err := os.Mkdir(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"data": "csv_data", "tools.json": "tools.json"} {
		if err := os.Symlink(filepath.Join(shared, target), filepath.Join(wd, link)); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, wd, "env.yaml", "workplace_assistant:\n  resources_servers:\n    workplace_assistant:\n      data_dir: data\n      tools_file: tools.json\n")
	t.Chdir(wd)
	code, stdout, stderr := gymkit(t, "check", "--config", cfg)
	if want := "ok workplace_assistant (workplace_assistant) 127.0.0.1:auto 27 tools"; code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 0 and %q", code, stdout, stderr, want)
	}
}
