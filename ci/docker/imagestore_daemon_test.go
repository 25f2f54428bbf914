package docker

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestDaemonImageTransfer reads the real daemon's image transfer and saves
// and loads an image through it. On a daemon below API 1.49 (this
// machine's Docker 20.10 speaks 1.41) it also shows why --platform is
// gated: the real CLI refuses save's flag below 1.48 and inspect's below
// 1.49.
func TestDaemonImageTransfer(t *testing.T) {
	t.Parallel() // its objects have names of their own
	c := daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tr, err := c.ImageTransfer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	plat, err := c.Run(ctx, "version", "--format", "{{.Server.Os}}/{{.Server.Arch}}")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Platform != strings.TrimSpace(string(plat)) {
		t.Errorf("ImageTransfer.Platform = %q, the daemon says %q", tr.Platform, plat)
	}
	t.Logf("this daemon: %s", tr.Describe())

	img := tinyImage(t, ctx, c)
	var archive bytes.Buffer
	if err := c.Save(ctx, img, &archive); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveImage(ctx, img); err != nil {
		t.Fatal(err)
	}
	loaded, err := c.Load(ctx, &archive)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded) != 1 || loaded[0] != img {
		t.Fatalf("docker load of the saved archive = %q, want [%s]", loaded, img)
	}

	below, err := apiAtLeast(tr.APIVersion, savePlatformAPI)
	if err != nil {
		t.Fatal(err)
	}
	if below = !below; below {
		if tr.SavePlatform {
			t.Fatalf("API %s: SavePlatform set below %s", tr.APIVersion, savePlatformAPI)
		}
		// The flags the gate guards: save's from 1.48, inspect's from 1.49.
		for _, tt := range []struct {
			api  string
			args []string
		}{
			{"1.48", []string{"save", "--platform", tr.Platform, img}},
			{"1.49", []string{"image", "inspect", "--platform", tr.Platform, img}},
		} {
			older, err := apiAtLeast(tt.api, tr.APIVersion)
			if err != nil {
				t.Fatal(err)
			}
			if !older || tt.api == tr.APIVersion {
				continue // this daemon takes the flag
			}
			_, err = c.Run(ctx, tt.args...)
			if err == nil || !strings.Contains(err.Error(), "requires API version "+tt.api) {
				t.Errorf("docker %s at API %s: err = %v, want the CLI's API version refusal", strings.Join(tt.args, " "), tr.APIVersion, err)
			}
		}
	}
}
