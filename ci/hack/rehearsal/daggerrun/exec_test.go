package daggerrun

import (
	"testing"
	"time"
)

func TestElapsedPrefixIsFixedWidthAndRounded(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "[+00:00.0]"},
		{1500 * time.Millisecond, "[+00:01.5]"},
		{59*time.Second + 960*time.Millisecond, "[+01:00.0]"},
		{4*time.Minute + 49*time.Second + 30*time.Millisecond, "[+04:49.0]"},
		{13*time.Minute + 7*time.Second + 250*time.Millisecond, "[+13:07.3]"},
	} {
		if got := elapsed(c.d); got != c.want {
			t.Errorf("elapsed(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
