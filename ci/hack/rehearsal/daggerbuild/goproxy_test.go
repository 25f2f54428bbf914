package daggerbuild

import (
	"os"
	"path/filepath"
	"testing"
)

func TestVersionInfo(t *testing.T) {
	for _, c := range []struct{ version, want string }{
		{"v0.0.0-20260402040506-574a5e81cb59", `{"Version":"v0.0.0-20260402040506-574a5e81cb59","Time":"2026-04-02T04:05:06Z"}` + "\n"},
		{"v1.6.0", `{"Version":"v1.6.0"}` + "\n"},
	} {
		if got := string(VersionInfo(c.version)); got != c.want {
			t.Errorf("VersionInfo(%s) = %s, want %s", c.version, got, c.want)
		}
	}
}

// A .mod without .info gets one; an existing .info is kept; escaped
// module paths and versions stay as the tree names them.
func TestCompleteInfos(t *testing.T) {
	tree := t.TempDir()
	v := filepath.Join(tree, "github.com", "!burnt!sushi", "toml", "@v")
	if err := os.MkdirAll(v, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"v1.4.0.mod": "module x\n", "v1.3.0.mod": "module x\n", "v1.3.0.info": "kept\n"} {
		if err := os.WriteFile(filepath.Join(v, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := CompleteInfos(tree); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"v1.4.0.info": `{"Version":"v1.4.0"}` + "\n", "v1.3.0.info": "kept\n"} {
		got, err := os.ReadFile(filepath.Join(v, name))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
}
