package hostdaemon

import (
	"os"
	"reflect"
	"testing"
)

func TestMountsUnderRecorded(t *testing.T) {
	m, err := os.ReadFile("testdata/proc-mounts.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := mountsUnder(m, "/tmp/daemon-m/")
	want := []string{
		// deepest first; the data root's own bind mount last
		"/tmp/daemon-m/data-root/overlay2/781d1a827fe95606b9a47c85ae6154c8ca9edb566be36327fb22f294b13ac6f3/merged",
		"/tmp/daemon-m/data-root/overlay2/461bcdbf3f92deaa50c38d314675a845b0f998a4e9bfb154812568225a024e1b/merged",
		"/tmp/daemon-m/exec-root/netns/83f947eb5ae4",
		"/tmp/daemon-m/exec-root/netns/7f2941b19a32",
		"/tmp/daemon-m/data-root",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("MountsUnder = %q\nwant %q", got, want)
	}
	if got := mountsUnder(m, "/tmp/daemon"); len(got) != 0 {
		t.Fatalf("a sibling's prefix matched: %q", got)
	}
}

func TestMountsUnderEscapes(t *testing.T) {
	// proc(5): special characters of a mount point are octal escapes.
	m := []byte("tmpfs /state/with\\040space tmpfs rw 0 0\ntmpfs /state tmpfs rw 0 0\nshort\n")
	got := mountsUnder(m, "/state")
	want := []string{"/state/with space", "/state"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("MountsUnder = %q, want %q", got, want)
	}
}
