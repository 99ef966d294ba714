package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Every environment shipped in servers/ is a folder NeMo's launcher finds
// from the repository root: resources_servers/<type> is a link to
// ../servers/<type>, which holds app.py and requirements.txt exactly as
// gymkit new renders them in gymkit's checkout (go test -update rewrites
// them), and no pyproject.toml (NeMo refuses a folder with both).
func TestShippedServersNemoLayout(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(filepath.Join("..", "servers"))
	if err != nil {
		t.Fatal(err)
	}
	var shipped []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "all" {
			shipped = append(shipped, e.Name())
		}
	}
	if len(shipped) < 4 {
		t.Fatalf("servers/ lists %v: fewer than the four shipped environments", shipped)
	}
	for _, name := range shipped {
		dir := filepath.Join("..", "servers", name)
		d := checkoutData(baseData(name))
		for file, tmpl := range map[string]string{"app.py": "app.py.tmpl", "requirements.txt": "requirements.txt.tmpl"} {
			want, err := render(tmpl, d)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, file)
			if *update {
				mode := os.FileMode(0o644)
				if file == "app.py" {
					mode = 0o755
				}
				if err := os.WriteFile(p, want, mode); err != nil {
					t.Fatal(err)
				}
			}
			got, err := os.ReadFile(p)
			if err != nil {
				t.Errorf("%v (run go test -update)", err)
				continue
			}
			if string(got) != string(want) {
				t.Errorf("servers/%s/%s is not %s as gymkit new renders it (run go test -update)", name, file, tmpl)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "pyproject.toml")); err == nil {
			t.Errorf("servers/%s has a pyproject.toml beside requirements.txt: NeMo's launcher refuses the folder", name)
		}
		link := filepath.Join("..", "resources_servers", name)
		target, err := os.Readlink(link)
		if err != nil || target != filepath.Join("..", "servers", name) {
			t.Errorf("resources_servers/%s: link to %q (%v), want a link to ../servers/%s", name, target, err, name)
		}
	}
	links, err := os.ReadDir(filepath.Join("..", "resources_servers"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range links {
		if !slices.Contains(shipped, l.Name()) {
			t.Errorf("resources_servers/%s: no servers/%s beside it", l.Name(), l.Name())
		}
	}
}
