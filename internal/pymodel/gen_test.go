package pymodel

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedUpToDate regenerates the models from the goldens and compares
// them with the committed models_gen.go (run go generate after changing the
// generator or the goldens).
func TestGeneratedUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the generator")
	}
	if _, err := os.Stat(peerDir); err != nil {
		t.Skip("goldens not found in " + peerDir)
	}
	out := filepath.Join(t.TempDir(), "models_gen.go")
	cmd := exec.Command("go", "run", "./gen", "-peer", peerDir, "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("models_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("models_gen.go is stale: run go generate ./internal/pymodel")
	}
}
