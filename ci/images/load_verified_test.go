package images

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// swappingDaemon loads another image than the archive it is handed holds:
// an archive replaced between the check and the load, or any entry the
// daemon reads that the check did not.
type swappingDaemon struct {
	*archiveDaemon
	id     string
	tagged []string
}

func (s *swappingDaemon) Load(context.Context, io.Reader) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loads++
	if s.loaded == nil {
		s.loaded = map[string]bool{}
	}
	s.loaded[s.id] = true
	return []string{s.id}, nil
}

func (s *swappingDaemon) Tag(_ context.Context, _, dst string) error {
	s.tagged = append(s.tagged, dst)
	return nil
}

// The image the daemon loaded must be one the archive check verified,
// whatever else ties the entry: a recorded ID (tagged reference), the
// archive's own pinned manifest, a recorded config. Refused, the image is
// never named by the entry's reference.
func TestLoadRefusesAnImageTheCheckDidNotVerify(t *testing.T) {
	other := "sha256:" + strings.Repeat("f", 64)
	for _, c := range []struct {
		name  string
		entry Entry
		files map[string][]byte
	}{
		{"a tagged reference, its ID recorded", Entry{Ref: "example.test/pin-recording:v1", ID: recordedConfig}, recorded(t, recordedDocker)},
		{"a tagged reference, nothing recorded", Entry{Ref: "example.test/pin-recording:v1"}, recorded(t, recordedDocker)},
		{"pinned to the manifest the archive holds", Entry{Ref: "example.test/pin-recording:v1@" + recordedManifest},
			recorded(t, recordedContainerd)},
		{"pinned, the config recorded", Entry{Ref: "example.test/pin-recording:v1@" + other, Config: recordedConfig}, daggerShaped(t)},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := pinBundle(t, c.entry, c.files)
			d := &swappingDaemon{archiveDaemon: &archiveDaemon{}, id: other}
			loaded, err := Load(context.Background(), d, dir, slog.New(slog.DiscardHandler))
			if err == nil {
				t.Fatalf("%s loaded as %s, an image the archive check never read", c.entry.Ref, loaded.Local(c.entry.Ref))
			}
			if !strings.Contains(err.Error(), c.entry.Ref) || !strings.Contains(err.Error(), "loaded as image "+other) ||
				!strings.Contains(err.Error(), "config "+recordedConfig) {
				t.Errorf("err = %v, want it to name %s, the loaded image and what the check read", err, c.entry.Ref)
			}
			if len(d.tagged) != 0 {
				t.Errorf("tagged %v with the unverified image", d.tagged)
			}
		})
	}
}
