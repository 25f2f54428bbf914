package moduleimages

import (
	"slices"
	"strings"
	"testing"
)

func TestDindImageRunsTheEntrypointTheModuleUses(t *testing.T) {
	bins := Bins{}
	for _, b := range append(append([]string{}, cliBinaries...), dindBinaries...) {
		bins[b] = "/built/" + b
	}
	s := dindSpec("base", bins, []byte("#!/bin/sh\n"))
	if s.Ref != DindRef || !slices.Equal(s.Entrypoint, []string{"dockerd-entrypoint.sh"}) || s.Cmd == nil || len(s.Cmd) != 0 {
		t.Fatalf("dind image %s: entrypoint %q cmd %q; want dockerd-entrypoint.sh and CMD []", s.Ref, s.Entrypoint, s.Cmd)
	}
	dests := map[string]string{}
	for _, f := range s.Files {
		dests[f.Dest] = f.Src
	}
	for _, b := range append([]string{"docker"}, dindBinaries...) {
		if dests["/usr/local/bin/"+b] != "/built/"+b {
			t.Errorf("dind image lacks /usr/local/bin/%s from the build", b)
		}
	}
	df := s.Dockerfile("KEY")
	for _, want := range []string{
		"ln -sT /usr/sbin/iptables-legacy-save /usr/local/sbin/.iptables-legacy/iptables-save",
		"ln -sT /usr/sbin/ip6tables-legacy /usr/local/sbin/.iptables-legacy/ip6tables",
		"ln -s /usr/bin/tini-static /usr/local/bin/docker-init",
		`ENV DOCKER_TLS_CERTDIR="/certs"`,
	} {
		if !strings.Contains(df, want) {
			t.Errorf("dind Dockerfile lacks %q:\n%s", want, df)
		}
	}
}

func TestEntrypointRefusesTLSAndWrapsDockerdAsPublished(t *testing.T) {
	for _, want := range []string{
		`set -- dockerd --host=unix:///var/run/docker.sock --host=tcp://0.0.0.0:2375 "$@"`,
		`set -- /usr/local/bin/dind docker-init -- "$@"`,
		"DOCKER_TLS_CERTDIR='' (as the gpu-lab module does)",
	} {
		if !strings.Contains(dockerdEntrypoint, want) {
			t.Errorf("dockerd-entrypoint.sh lacks %q", want)
		}
	}
}

func TestGoImageHasThePublishedEnv(t *testing.T) {
	s := goSpec("base", "go1.26.8")
	df := s.Dockerfile("KEY")
	for _, want := range []string{`ENV GOLANG_VERSION="1.26.8"`, `ENV GOPATH="/go"`, `ENV GOTOOLCHAIN="local"`, "WORKDIR /go\n",
		`ENV PATH="/go/bin:/usr/local/go/bin:`} {
		if !strings.Contains(df, want) {
			t.Errorf("golang Dockerfile lacks %q:\n%s", want, df)
		}
	}
}

func TestVendoredBuildsStayOffline(t *testing.T) {
	moby, cli := dockerdBuild(), cliBuild()
	if env := strings.Join(moby.Env("/gp"), " "); !strings.Contains(env, "GOFLAGS=-mod=vendor") || !strings.Contains(env, "GOPROXY=off") {
		t.Errorf("moby build env %q: want -mod=vendor and GOPROXY=off", env)
	}
	if env := strings.Join(cli.Env("/gp"), " "); !strings.Contains(env, "GO111MODULE=auto") || !strings.Contains(env, "GOPATH=/gp") ||
		!strings.Contains(env, "GOPROXY=off") {
		t.Errorf("cli build env %q: want GOPATH mode and GOPROXY=off", env)
	}
	if moby.Key("go1.26.8") == cli.Key("go1.26.8") || moby.Key("go1.26.8") == moby.Key("go1.26.9") {
		t.Error("cache keys do not follow the build and the toolchain")
	}
}

func TestTarWithGoPutsGorootAtUsrLocalGo(t *testing.T) {
	got := strings.Join(tarWithGo("/cache/fs", "/usr/local/go"), " ")
	want := "tar --numeric-owner --xattrs -c -C /cache/fs . -C /usr/local --transform s,^go,./usr/local/go,S go"
	if got != want {
		t.Errorf("tarWithGo = %q; want %q", got, want)
	}
}

func TestEveryImageListsItsDifferences(t *testing.T) {
	d := Differences()
	for _, ref := range []string{CLIRef, DindRef, GoRef} {
		if len(d[ref]) < 2 {
			t.Errorf("%s lists %d differences", ref, len(d[ref]))
		}
	}
	if archiveName(DindRef) != "docker-29-dind" || archiveName(GoRef) != "golang-1.26" {
		t.Errorf("archive names %q %q", archiveName(DindRef), archiveName(GoRef))
	}
}
