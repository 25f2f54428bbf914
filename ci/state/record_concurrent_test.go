package state

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

// The stages write side by side (the hami stage each tenant's values file
// at once): every write must be recorded. A lost record left
// values/hami-tenant-a.yaml behind after a teardown, and the next up
// refused it as a file labctl did not write (the rehearsal's gpus:INT+8s,
// 2026-12-07).
func TestWritesSideBySideAreAllRecorded(t *testing.T) {
	d := Dir(t.TempDir())
	if err := d.Claim(RealLab); err != nil {
		t.Fatal(err)
	}
	const n = 32
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- d.write(fmt.Sprintf("values/f-%02d.yaml", i), []byte("x"), 0o600)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	m, err := d.Marker()
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if rel := fmt.Sprintf("values/f-%02d.yaml", i); !slices.Contains(m.Written, rel) {
			t.Errorf("%s written but not recorded (recorded: %d paths)", rel, len(m.Written))
		}
	}
}
