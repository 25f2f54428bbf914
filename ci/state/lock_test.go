package state

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestHold: a second holder is refused with the first one's pid and
// command; once released, the dir can be held again.
func TestHold(t *testing.T) {
	d := Dir(t.TempDir())
	must(t, d.Claim(Testenv))
	release, err := d.Hold("labctl testenv up")
	must(t, err)
	_, err = d.Hold("labctl down")
	want := fmt.Sprintf("is in use by `labctl testenv up` (pid %d)", os.Getpid())
	if !errors.Is(err, errBusy) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want ErrBusy and %q", err, want)
	}
	release()
	release2, err := d.Hold("labctl down")
	must(t, err)
	release2()
}
