package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/internal/helm"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
)

// version is set by release builds (-ldflags "-X main.version=v1.2.3");
// otherwise the module version from the build info is shown.
var version = ""

func newVersionCommand(s streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print labctl's version and commit and every pinned component version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := io.WriteString(s.out, cmd.Root().Version)
			return err
		},
	}
}

// versionText is labctl's version, the commit it was built from (with
// "+ local changes" when the tree was modified) and the pinned versions
// of what it installs. info is nil when the binary has no build info.
func versionText(info *debug.BuildInfo) string {
	var b strings.Builder
	v, commit, when, dirty := version, "", "", false
	if info != nil {
		if v == "" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if v == "" || v == "(devel)" {
		v = "development build"
	}
	fmt.Fprintf(&b, "labctl %s\n", v)
	switch {
	case commit == "":
		b.WriteString("commit unknown (built outside a git checkout, or with -buildvcs=false)\n")
	default:
		fmt.Fprintf(&b, "commit %s", commit)
		if when != "" {
			fmt.Fprintf(&b, " (%s)", when)
		}
		if dirty {
			b.WriteString(" + local changes")
		}
		b.WriteString("\n")
	}
	if info != nil && info.GoVersion != "" {
		fmt.Fprintf(&b, "built with %s\n", info.GoVersion)
	}
	b.WriteString("\npinned versions (a lab file's versions: overrides them)\n")
	d := lab.DefaultVersions()
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, row := range [][2]string{
		{"tenant Kubernetes", d.Kubernetes + " (supported: " + strings.Join(lab.SupportedKubernetes(), ", ") + ")"},
		{"kind module", lab.KindModuleVersion},
		{"kind node image (management)", d.KindNodeImage},
		{"worker image", d.WorkerImage()},
		{"Kamaji chart", d.KamajiChart},
		{"Kamaji image", d.KamajiImage},
		{"cert-manager", d.CertManager},
		{"HAMi chart", d.HAMiChart},
		{"HAMi image", d.HAMiImage},
		{"HAMi mock device plugin", d.HAMiMockDevicePlugin},
		{"konnectivity", d.Konnectivity},
		{"helm CLI", helm.Version},
		{"local test environment Kubernetes", testenv.KubernetesVersion},
	} {
		fmt.Fprintf(tw, "  %s\t%s\n", row[0], row[1])
	}
	_ = tw.Flush() // a strings.Builder does not fail
	return b.String()
}
