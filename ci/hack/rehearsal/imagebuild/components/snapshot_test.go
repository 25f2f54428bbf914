package components

import (
	"reflect"
	"strings"
	"testing"
)

func TestSnapshotImagesLayout(t *testing.T) {
	// ko: /ko-app/<name>, nonroot, entrypoint only.
	k := Kamaji("clastix/kamaji:26.8.2-edge", "src", "/b/kamaji")
	if k.Base != StaticBaseRef || k.User != "65532" || !reflect.DeepEqual(k.Entrypoint, []string{"/ko-app/kamaji"}) || k.Cmd != nil ||
		len(k.Files) != 1 || k.Files[0].Dest != "/ko-app/kamaji" || k.Files[0].Src != "/b/kamaji" {
		t.Errorf("kamaji %+v", k)
	}
	if !reflect.DeepEqual(k.Env, []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/ko-app",
		"KO_DATA_PATH=/var/run/ko"}) {
		t.Errorf("kamaji env %v", k.Env)
	}

	// cert-manager: /app/cmd/<name>/<name>, startupapicheck at the root, user 1000.
	for name, path := range map[string]string{
		"controller": "/app/cmd/controller/controller", "webhook": "/app/cmd/webhook/webhook",
		"cainjector": "/app/cmd/cainjector/cainjector", "startupapicheck": "/startupapicheck",
	} {
		c := CertManager("quay.io/jetstack/cert-manager-"+name+":v1.18.3", name, "src", "/b/"+name)
		if c.User != "1000" || c.Base != StaticBaseRef || !reflect.DeepEqual(c.Entrypoint, []string{path}) || c.Files[0].Dest != path ||
			c.Files[0].Src != "/b/"+name {
			t.Errorf("cert-manager %s %+v", name, c)
		}
	}

	g := Certgen("docker.io/liangjw/kube-webhook-certgen:v1.1.1", "src", "/b/kube-webhook-certgen")
	if g.User != "65532:65532" || !reflect.DeepEqual(g.Entrypoint, []string{"/kube-webhook-certgen"}) ||
		g.Files[0].Dest != "/kube-webhook-certgen" {
		t.Errorf("certgen %+v", g)
	}
}

// docker/Dockerfile.hamimaster at v2.10.0: /k8s-vgpu/{bin,lib,LICENSE},
// bash -c entrypoint with $DEST_DIR left to run time, PATH first.
func TestHAMiLayout(t *testing.T) {
	h := HAMi("docker.io/projecthami/hami:v2.10.0", "v2.10.0", "src", "/bin", "/tree", "base")
	got := map[string]string{}
	for _, f := range h.Files {
		got[f.Dest] = f.Src
		if strings.HasPrefix(f.Dest, "/k8s-vgpu/bin/") && f.Mode != 0o755 {
			t.Errorf("%s mode %v, want 0755", f.Dest, f.Mode)
		}
	}
	want := map[string]string{
		"/k8s-vgpu/bin/scheduler":            "/bin/scheduler",
		"/k8s-vgpu/bin/vGPUmonitor":          "/bin/vGPUmonitor",
		"/k8s-vgpu/bin/nvidia-device-plugin": "/bin/nvidia-device-plugin",
		"/k8s-vgpu/bin/entrypoint.sh":        "/tree/docker/entrypoint.sh",
		"/k8s-vgpu/bin/vgpu-init.sh":         "/tree/docker/vgpu-init.sh",
		"/k8s-vgpu/LICENSE":                  "/tree/LICENSE",
		"/k8s-vgpu/lib/nvidia/ld.so.preload": "/tree/lib/nvidia/ld.so.preload",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("files %v\nwant %v", got, want)
	}
	if h.Base != "base" || h.User != "" || !reflect.DeepEqual(h.Entrypoint, []string{"/bin/bash", "-c", "entrypoint.sh  $DEST_DIR"}) {
		t.Errorf("hami %+v", h)
	}
	if !strings.HasPrefix(h.Env[len(h.Env)-1], "PATH=/k8s-vgpu/bin:") {
		t.Errorf("hami env %v: PATH does not start with /k8s-vgpu/bin", h.Env)
	}
	// the Dockerfile's ENTRYPOINT must reach the image as written
	if df := h.Dockerfile("k"); !strings.Contains(df, `ENTRYPOINT ["/bin/bash","-c","entrypoint.sh  $DEST_DIR"]`) {
		t.Errorf("Dockerfile:\n%s", df)
	}
}
