package daggerbuild

import "testing"

func TestEngineConfigJSON(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  EngineConfig
		want string
	}{
		{"nothing set", EngineConfig{}, "{}\n"},
		{"log level", EngineConfig{LogLevel: "debug"}, "{\n  \"logLevel\": \"debug\"\n}\n"},
		{
			"gc space, the keys of engine/config/config.go:128,132 @v0.21.8",
			EngineConfig{GC: GCSpace{ReservedSpace: "40GB", MaxUsedSpace: "60GB"}},
			"{\n  \"gc\": {\n    \"reservedSpace\": \"40GB\",\n    \"maxUsedSpace\": \"60GB\"\n  }\n}\n",
		},
		{
			"a mirror in plain HTTP gets its own entry; the origin stays HTTPS",
			EngineConfig{Mirrors: map[string][]string{"docker.io": {"172.17.0.1:5000"}}, HTTP: []string{"172.17.0.1:5000"}},
			"{\n  \"registries\": {\n    \"172.17.0.1:5000\": {\n      \"http\": true\n    },\n    \"docker.io\": {\n      \"mirrors\": [\n" +
				"        \"172.17.0.1:5000\"\n      ]\n    }\n  }\n}\n",
		},
	} {
		got, err := c.cfg.JSON()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if string(got) != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

func TestParseMirror(t *testing.T) {
	for _, c := range []struct {
		in      string
		reg     string
		mirrors []string
		ok      bool
	}{
		{"docker.io=172.17.0.1:5000", "docker.io", []string{"172.17.0.1:5000"}, true},
		{"docker.io=a:5000, b:5000", "docker.io", []string{"a:5000", "b:5000"}, true},
		{"docker.io=http://a:5000", "", nil, false},
		{"docker.io", "", nil, false},
		{"=a:5000", "", nil, false},
	} {
		reg, mirrors, err := ParseMirror(c.in)
		if (err == nil) != c.ok {
			t.Errorf("%q: err = %v, want ok=%v", c.in, err, c.ok)
			continue
		}
		if reg != c.reg || len(mirrors) != len(c.mirrors) {
			t.Errorf("%q: got %q %q", c.in, reg, mirrors)
			continue
		}
		for i := range mirrors {
			if mirrors[i] != c.mirrors[i] {
				t.Errorf("%q: mirror %d = %q, want %q", c.in, i, mirrors[i], c.mirrors[i])
			}
		}
	}
}
