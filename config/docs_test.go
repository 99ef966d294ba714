package config

import (
	"bufio"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// instanceKeys returns every framework key of a server block, dotted for
// the keys of a block (mcp.tools, auth.jwt.leeway): the koanf keys of
// Instance and of the structs its block fields hold, then secretKeys and
// metadataKeys. A block is listed itself too (mcp, auth.jwt).
func instanceKeys() []string {
	var keys []string
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("koanf"), ",")
			if name == "" || name == "-" {
				continue
			}
			key := prefix + name
			keys = append(keys, key)
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && ft.PkgPath() == t.PkgPath() {
				walk(key+".", ft)
			}
		}
	}
	walk("", reflect.TypeFor[Instance]())
	keys = append(keys, secretKeys...)
	return append(keys, metadataKeys...)
}

// docKeyRows reads the table of docs/config.md's section "Framework keys
// of a server block": each backticked key of a row's first cell, with the
// row's other cells.
func docKeyRows(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]string{}
	section, table := false, false
	code := regexp.MustCompile("`([^`]+)`")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			section = line == "## Framework keys of a server block"
			continue
		}
		if !section {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			if table {
				break // the first table of the section only
			}
			continue
		}
		table = true
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, " | ")
		for _, m := range code.FindAllStringSubmatch(cells[0], -1) {
			rows[m[1]] = strings.Join(cells[1:], " | ")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal(`docs/config.md has no table of keys under "## Framework keys of a server block"`)
	}
	return rows
}

// TestDocsListEveryKey fails when docs/config.md's table of framework keys
// misses a key of a server block (a field of Instance, or of one of its
// blocks, with a koanf tag), or lists a key gymkit does not read. A key of
// a block may be described in its block's row instead (mcp.server_info's
// row names name, version, title and instructions), and a block needs no
// row of its own when its keys have rows (auth.jwt).
func TestDocsListEveryKey(t *testing.T) {
	t.Parallel()
	rows := docKeyRows(t)
	keys := instanceKeys()
	for _, k := range keys {
		if _, ok := rows[k]; ok {
			continue
		}
		parent, leaf := k, ""
		if i := strings.LastIndex(k, "."); i >= 0 {
			parent, leaf = k[:i], k[i+1:]
		}
		if row, ok := rows[parent]; ok && leaf != "" && strings.Contains(row, "`"+leaf+"`") {
			continue // described in its block's row
		}
		if slices.ContainsFunc(keys, func(sub string) bool { _, ok := rows[sub]; return ok && strings.HasPrefix(sub, k+".") }) {
			continue // a block whose keys have rows
		}
		t.Errorf("docs/config.md, \"Framework keys of a server block\", has no row for the key %s: add one (type, default, meaning)", k)
	}
	for k := range rows {
		if !slices.Contains(keys, k) {
			t.Errorf("docs/config.md, \"Framework keys of a server block\", lists %s, which is no framework key of a server block", k)
		}
	}
}
