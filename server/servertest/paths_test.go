package servertest_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server"
	"github.com/gymkit/gymkit/server/servertest"
)

// readerType is a test-only server type whose Provision reads the file its
// file key names, and whose /read tool answers what it read.
const readerType = "servertest_path_reader"

func init() { framework.Register(readerType, func() framework.Server { return new(reader) }) }

type reader struct {
	framework.Base
	File config.Path `koanf:"file"`
	text string
}

type readAnswer struct {
	Text string `json:"text"`
}

func (s *reader) Provision(context.Context) error {
	b, err := os.ReadFile(string(s.File))
	s.text = string(b)
	return err
}

func (s *reader) Routes(r *framework.Router) {
	framework.Post(r, "/read", func(context.Context, framework.NoBody) (readAnswer, error) { return readAnswer{s.text}, nil })
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

// One relative path, file: data/greeting.txt, names the same file, the one in the server folder,
// through servertest.Options.Config in the server folder (go test's working directory for an
// environment's package), through gymkit serve's config file
// <repository>/servers/reader/configs/reader.yaml from the repository root or from another
// folder, and through gymkit serve --nemo's NEMO_GYM_CONFIG_DICT in the server folder (where
// NeMo's launcher starts the server). Files of the same name in the repository root and in
// configs/ are never read.
func TestOneRelativePathThreeWays(t *testing.T) {
	root := t.TempDir()
	serverDir := filepath.Join(root, "servers", "reader")
	const want = "the server folder's file"
	for name, text := range map[string]string{
		"servers/reader/data/greeting.txt":         want,
		"data/greeting.txt":                        "the repository root's file",
		"servers/reader/configs/data/greeting.txt": "the configs/ folder's file",
		"elsewhere/data/greeting.txt":              "the other working directory's file",
		"servers/reader/configs/reader.yaml":       "reader:\n  resources_servers:\n    " + readerType + ":\n      domain: other\n      file: data/greeting.txt\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	configFile := filepath.Join(serverDir, "configs", "reader.yaml")
	dict, err := os.ReadFile(configFile)
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	viaHost := func(t *testing.T, opts server.Options) string {
		t.Helper()
		opts.Logger, opts.Ready = quiet, io.Discard
		opts.LookupEnv = func(string) (string, bool) { return "", false }
		h, err := server.New(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		ts := httptest.NewServer(h.Instances()[0].Handler())
		defer ts.Close()
		res, err := http.Post(ts.URL+"/read", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name string
		read func(t *testing.T) string
	}{
		{"servertest.Options.Config in the server folder", func(t *testing.T) string {
			t.Chdir(serverDir)
			ts := servertest.New(t, new(reader), servertest.Options{ServerType: readerType, Config: "file: data/greeting.txt", Logger: quiet})
			return string(ts.Rollout().Post("/read", `{}`).Body)
		}},
		{"serve --config from the repository root", func(t *testing.T) string {
			return viaHost(t, server.Options{Files: []string{"servers/reader/configs/reader.yaml"}, WorkDir: root})
		}},
		{"serve --config from another folder", func(t *testing.T) string {
			return viaHost(t, server.Options{Files: []string{configFile}, WorkDir: filepath.Join(root, "elsewhere")})
		}},
		{"serve --nemo in the server folder", func(t *testing.T) string {
			return viaHost(t, server.Options{Dict: dict, Instance: "reader", WorkDir: serverDir})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.read(t); !strings.Contains(got, `"text":"`+want+`"`) {
				t.Errorf("/read answered %s, want the text of %s", got, filepath.Join(serverDir, "data", "greeting.txt"))
			}
		})
	}
}
