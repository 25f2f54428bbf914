package labcmd

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestParseOverrides(t *testing.T) {
	tests := []struct {
		name    string
		in      []string
		want    []Override
		wantErr []string
	}{
		{name: "none", in: nil},
		{name: "two", in: []string{"kubernetes=v1.35.8", " hamiChart = 2.10.0 "},
			want: []Override{{"kubernetes", "v1.35.8"}, {"hamiChart", "2.10.0"}}},
		{name: "image with digest keeps its '='-free value", in: []string{"kindNodeImage=kindest/node:v1.37.0@sha256:abc"},
			want: []Override{{"kindNodeImage", "kindest/node:v1.37.0@sha256:abc"}}},
		{name: "no equals", in: []string{"kubernetes"}, wantErr: []string{`"kubernetes"`, "name=value"}},
		{name: "empty value", in: []string{"kubernetes="}, wantErr: []string{"name=value"}},
		{name: "unknown name", in: []string{"k8s=v1.35.8"}, wantErr: []string{`unknown version "k8s"`, "kubernetes"}},
		{name: "twice", in: []string{"hamiImage=v2.10.0", "hamiImage=v2.9.0"}, wantErr: []string{"set twice"}},
		{name: "all errors together", in: []string{"x=1", "y"}, wantErr: []string{`"x=1"`, `"y"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseOverrides(tt.in)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("no error, want %q", tt.wantErr)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("[%d] = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

const seed = `apiVersion: gpu-lab.dev/v1alpha1
kind: Lab
name: gpu-lab
versions:
  hamiChart: 2.10.0
tenants:
  - name: tenant-a
    workers:
      - name: worker
        gpus:
          - model: A100-80GB
            count: 1
`

func TestApplyOverrides(t *testing.T) {
	out, err := ApplyOverrides([]byte(seed), []Override{{"kubernetes", "v1.35.8"}, {"hamiChart", "2.9.0"}})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Name       string            `json:"name"`
		Versions   map[string]string `json:"versions"`
		Tenants    []map[string]any  `json:"tenants"`
	}
	if err := yaml.UnmarshalStrict(out, &doc); err != nil {
		t.Fatalf("result is not a lab file: %v\n%s", err, out)
	}
	if doc.Versions["kubernetes"] != "v1.35.8" || doc.Versions["hamiChart"] != "2.9.0" {
		t.Errorf("versions = %v, want kubernetes=v1.35.8 and hamiChart overridden to 2.9.0", doc.Versions)
	}
	if doc.Name != "gpu-lab" || len(doc.Tenants) != 1 {
		t.Errorf("the rest of the lab changed: name %q, %d tenants", doc.Name, len(doc.Tenants))
	}
}

func TestApplyOverridesWithoutVersionsBlock(t *testing.T) {
	out, err := ApplyOverrides([]byte("name: x\ntenants: []\n"), []Override{{"kubernetes", "v1.34.11"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "kubernetes: v1.34.11") {
		t.Fatalf("override missing:\n%s", out)
	}
}

func TestApplyOverridesNoneKeepsFileByteForByte(t *testing.T) {
	out, err := ApplyOverrides([]byte(seed), nil)
	if err != nil || string(out) != seed {
		t.Fatalf("got %q, %v; want the file unchanged", out, err)
	}
}

func TestApplyOverridesErrors(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"empty", "", "empty"},
		{"not yaml", "name: [", "lab file"},
		{"versions not a map", "name: x\nversions: v1\n", "versions is a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ApplyOverrides([]byte(tt.file), []Override{{"kubernetes", "v1.35.8"}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
