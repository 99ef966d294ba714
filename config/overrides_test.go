package config

import "testing"

// An override into the resources_servers block of an instance the files do
// not have is a typo of an instance name: it is refused with the closest
// instance, instead of creating an instance that then lacks a domain.
func TestOverrideUnknownInstance(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("guess_number"), "d.yaml": server("weather")})
	for _, tc := range []struct {
		name     string
		files    []string
		override string
		want     string // the problem's Error(); "" = loads
	}{
		{"typo", []string{"c.yaml"}, "guess_numbr.resources_servers.guess_number.max_guesses=3",
			"command line: guess_numbr.resources_servers.guess_number.max_guesses: no instance guess_numbr in the config (its instances: guess_number); did you mean `guess_number`?"},
		{"far from every instance", []string{"c.yaml", "d.yaml"}, "zzz.resources_servers.x.port=1",
			"command line: zzz.resources_servers.x.port: no instance zzz in the config (its instances: guess_number, weather)"},
		{"known instance", []string{"c.yaml"}, "guess_number.resources_servers.guess_number.port=8000", ""},
		{"other top-level key", []string{"c.yaml"}, "default_host=0.0.0.0", ""},
		{"new variable", []string{"c.yaml"}, "my_var.resources=1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(opts(dir, tc.files, tc.override))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			ps := problemsOf(t, err)
			if len(ps) != 1 || ps[0].Error() != tc.want {
				t.Errorf("problems:\n%v\nwant one:\n%s", err, tc.want)
			}
		})
	}
}
