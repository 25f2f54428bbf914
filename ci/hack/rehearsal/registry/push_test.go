package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeRegistry keeps what the distribution API puts: blobs checked against
// the digest they are put under, manifests by repository and reference.
type fakeRegistry struct {
	mu        sync.Mutex
	blobs     map[string][]byte
	manifests map[string][]byte
	types     map[string]string
	uploads   int
}

func digestOf(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

func (f *fakeRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := strings.TrimPrefix(r.URL.Path, "/v2/")
	switch {
	case r.Method == http.MethodHead && strings.Contains(p, "/blobs/"):
		if _, ok := f.blobs[p[strings.LastIndex(p, "/")+1:]]; !ok {
			w.WriteHeader(http.StatusNotFound)
		}
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/blobs/uploads/"):
		w.Header().Set("Location", "/v2/"+p+"u1")
		w.WriteHeader(http.StatusAccepted)
	case r.Method == http.MethodPut && strings.Contains(p, "/blobs/uploads/"):
		b, _ := io.ReadAll(r.Body)
		if d := r.URL.Query().Get("digest"); d != digestOf(b) {
			http.Error(w, "digest mismatch", http.StatusBadRequest)
			return
		}
		f.blobs[digestOf(b)] = b
		f.uploads++
		w.WriteHeader(http.StatusCreated)
	case r.Method == http.MethodPut && strings.Contains(p, "/manifests/"):
		b, _ := io.ReadAll(r.Body)
		f.manifests[p], f.types[p] = b, r.Header.Get("Content-Type")
		w.Header().Set("Docker-Content-Digest", digestOf(b))
		w.WriteHeader(http.StatusCreated)
	default:
		http.Error(w, "unexpected "+r.Method+" "+p, http.StatusBadRequest)
	}
}

func TestPushOfADockerSaveArchiveMakesAnOCIManifestOfItsConfigAndLayers(t *testing.T) {
	f := &fakeRegistry{blobs: map[string][]byte{}, manifests: map[string][]byte{}, types: map[string]string{}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	p := Pusher{Client: srv.Client(), Host: strings.TrimPrefix(srv.URL, "http://")}
	dg, err := p.push(context.Background(), "testdata/docker-20.10.24-save-tiny.tar", "docker.io/library/tiny", "v1")
	if err != nil {
		t.Fatal(err)
	}
	body := f.manifests["docker.io/library/tiny/manifests/v1"]
	if dg != digestOf(body) || f.types["docker.io/library/tiny/manifests/v1"] != ociManifest {
		t.Fatalf("Push returned %s for a manifest of digest %s, type %q", dg, digestOf(body), f.types["docker.io/library/tiny/manifests/v1"])
	}
	var m struct {
		SchemaVersion int
		Config        descriptor
		Layers        []descriptor
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	// docker's image ID (the config file's name in the archive) is its
	// config's digest.
	if m.SchemaVersion != 2 || m.Config.Digest != "sha256:6912ce91b5115788a37a82449210cf80a748987d2fbf267cb8a3113c8a701c7f" ||
		m.Config.MediaType != ociConfig {
		t.Fatalf("manifest config %+v (schema %d)", m.Config, m.SchemaVersion)
	}
	var cfg struct {
		RootFS struct {
			DiffIDs []string `json:"diff_ids"`
		} `json:"rootfs"`
	}
	if err := json.Unmarshal(f.blobs[m.Config.Digest], &cfg); err != nil {
		t.Fatal(err)
	}
	if len(m.Layers) != 1 || len(cfg.RootFS.DiffIDs) != 1 || m.Layers[0].Digest != cfg.RootFS.DiffIDs[0] || m.Layers[0].Size != 10240 ||
		f.blobs[m.Layers[0].Digest] == nil {
		t.Fatalf("layers %+v; config diff IDs %v", m.Layers, cfg.RootFS.DiffIDs)
	}
	// A second push finds every blob there and uploads none again.
	n := f.uploads
	if _, err := p.push(context.Background(), "testdata/docker-20.10.24-save-tiny.tar", "docker.io/library/tiny",
		"v1"); err != nil || f.uploads != n {
		t.Fatalf("second push: %v, %d uploads (was %d)", err, f.uploads, n)
	}
}
