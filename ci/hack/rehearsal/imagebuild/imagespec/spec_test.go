package imagespec

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDockerfileLaysOutFilesAndConfig(t *testing.T) {
	s := Spec{
		Base:       "base:1",
		Files:      []File{{Dest: "/usr/local/bin/x", Mode: 0o755, Data: []byte("x")}, {Dest: "/etc/y", Data: []byte("y")}},
		Run:        []string{"true"},
		Env:        []string{"container=docker"},
		User:       "65535:65535",
		StopSignal: "SIGRTMIN+3",
		Entrypoint: []string{"/usr/local/bin/entrypoint", "/sbin/init"},
		Cmd:        []string{"-v"},
		Source:     "upstream",
	}
	want := `FROM base:1
COPY files/0 /usr/local/bin/x
COPY files/1 /etc/y
RUN true
ENV container="docker"
USER 65535:65535
STOPSIGNAL SIGRTMIN+3
ENTRYPOINT ["/usr/local/bin/entrypoint","/sbin/init"]
CMD ["-v"]
LABEL org.gpu-lab.rehearsal.key="k1"
LABEL org.gpu-lab.rehearsal.source="upstream"
`
	if got := s.Dockerfile("k1"); got != want {
		t.Errorf("Dockerfile =\n%s\nwant\n%s", got, want)
	}
}

// The key follows every input: a file's content, mode and place, the base.
func TestKeyFollowsContentModeAndBase(t *testing.T) {
	src := filepath.Join(t.TempDir(), "bin")
	if err := os.WriteFile(src, []byte("v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := Spec{Ref: "r:1", Base: "b", Files: []File{{Dest: "/bin/x", Mode: 0o755, Src: src}}}
	k, err := s.Key("sha256:base1")
	if err != nil {
		t.Fatal(err)
	}
	if k2, _ := s.Key("sha256:base2"); k2 == k {
		t.Error("another base image keeps the key")
	}
	m := s
	m.Files = []File{{Dest: "/bin/x", Mode: 0o644, Src: src}}
	if k2, _ := m.Key("sha256:base1"); k2 == k {
		t.Error("another mode keeps the key")
	}
	m.Files = []File{{Dest: "/bin/y", Mode: 0o755, Src: src}}
	if k2, _ := m.Key("sha256:base1"); k2 == k {
		t.Error("another destination keeps the key")
	}
	if err := os.WriteFile(src, []byte("v2"), 0o755); err != nil {
		t.Fatal(err)
	}
	if k2, _ := s.Key("sha256:base1"); k2 == k {
		t.Error("another content keeps the key")
	}
	s.Files[0].Src = filepath.Join(t.TempDir(), "missing")
	if _, err := s.Key("x"); err == nil {
		t.Error("a missing file gave no error")
	}
}

// The build context holds each file at files/<i> with its mode.
func TestWriteContext(t *testing.T) {
	dir := t.TempDir()
	s := Spec{Base: "scratch", Files: []File{{Dest: "/pause", Mode: 0o755, Data: []byte("p")}}}
	if err := writeContext(dir, s, "k"); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "files", "0"))
	if err != nil || st.Mode().Perm() != 0o755 {
		t.Fatalf("files/0: %v, mode %v", err, st.Mode())
	}
	b, _ := os.ReadFile(filepath.Join(dir, "Dockerfile"))
	if string(b) != s.Dockerfile("k") {
		t.Errorf("Dockerfile in the context differs from Spec.Dockerfile")
	}
}
