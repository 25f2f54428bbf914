package capfilter

import (
	"os"
	"reflect"
	"testing"
)

// The sandbox's recorded bounding set lacks exactly CAP_SYS_RESOURCE.
func TestParseBoundingOfRecordedStatus(t *testing.T) {
	status, err := os.ReadFile("testdata/proc-self-status.txt")
	if err != nil {
		t.Fatal(err)
	}
	bnd, err := ParseBounding(status)
	if err != nil {
		t.Fatal(err)
	}
	if bnd != 0x1fffeffffff {
		t.Fatalf("CapBnd = %#x, want 0x1fffeffffff (as recorded)", bnd)
	}
	if got := Missing(bnd); !reflect.DeepEqual(got, []string{"CAP_SYS_RESOURCE"}) {
		t.Fatalf("Missing = %v, want [CAP_SYS_RESOURCE]", got)
	}
}

func TestParseBoundingErrors(t *testing.T) {
	for name, in := range map[string]string{
		"no CapBnd line": "Name:\tcat\nCapEff:\t0000000000000000\n",
		"not hex":        "CapBnd:\tzz\n",
		"empty":          "",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseBounding([]byte(in)); err == nil {
				t.Fatalf("ParseBounding(%q) succeeded", in)
			}
		})
	}
}

func TestMissing(t *testing.T) {
	for _, tc := range []struct {
		name string
		bnd  uint64
		want []string
	}{
		{"full set of kernel 5.9+ (41 capabilities)", 1<<41 - 1, nil},
		{"sandbox: all but bit 24", 0x1fffeffffff, []string{"CAP_SYS_RESOURCE"}},
		{"no bits 38-40 and no bit 0", (1<<38 - 1) &^ 1, []string{"CAP_BPF", "CAP_CHECKPOINT_RESTORE", "CAP_CHOWN", "CAP_PERFMON"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Missing(tc.bnd); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Missing(%#x) = %v, want %v", tc.bnd, got, tc.want)
			}
		})
	}
	if got := Missing(0); len(got) != len(capBits) {
		t.Fatalf("Missing(0) has %d names, want all %d", len(got), len(capBits))
	}
}
