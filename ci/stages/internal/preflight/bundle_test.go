package preflight

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// daemonImages has the images of the map; err fails every look-up.
type daemonImages struct {
	has    map[string]bool
	err    error
	lookup []string
}

func (d *daemonImages) ImageExists(_ context.Context, ref string) (bool, error) {
	d.lookup = append(d.lookup, ref)
	return d.has[ref], d.err
}

// TestBundleHolds: a node image the bundle lacks is the bundle's gap only
// when the daemon lacks it too; one the bundle loaded is not looked up.
func TestBundleHolds(t *testing.T) {
	broken := errors.New("daemon gone")
	for _, tt := range []struct {
		name    string
		loaded  bool
		d       *daemonImages
		wantErr string // "" = no error
		lookups int
	}{
		{"loaded from the bundle", true, &daemonImages{}, "", 0},
		{"on the daemon already", false, &daemonImages{has: map[string]bool{"node:v1": true}}, "", 1},
		{"nowhere", false, &daemonImages{}, "preflight: the bundle /b holds no node:v1, and the Docker daemon does not have it", 1},
		{"the daemon cannot say", false, &daemonImages{err: broken}, broken.Error(), 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := BundleHolds(context.Background(), tt.d, "/b", "node:v1", tt.loaded)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("err = %v, want none", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			if len(tt.d.lookup) != tt.lookups {
				t.Errorf("looked up %q, want %d look-ups", tt.d.lookup, tt.lookups)
			}
		})
	}
}
