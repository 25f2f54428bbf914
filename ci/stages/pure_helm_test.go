package stages

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/internal/helm"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func TestChartInstallArgs(t *testing.T) {
	l := lab.Default()
	tests := []struct {
		name  string
		chart helm.Chart
		want  string
	}{
		{"cert-manager", CertManagerChart(l, 10*time.Minute),
			"upgrade --install cert-manager cert-manager --repo https://charts.jetstack.io --version v1.18.3" +
				" --namespace cert-manager --create-namespace --set crds.enabled=true --wait --timeout 10m0s"},
		// kamaji-etcd's values under the subchart's name (kamaji 26.8.2-edge
		// charts/kamaji/Chart.yaml:21-25, no alias): kamaji-etcd v0.17.0
		// charts/kamaji-etcd/values.yaml:15-21 image.*, :219-225 jobs.kubectl.*
		// and jobs.etcd.*.
		{"kamaji: explicit 0.0.0+latest, pinned image, no limits, no telemetry, kamaji-etcd's images pinned", KamajiChart(l, 10*time.Minute),
			"upgrade --install kamaji kamaji --repo https://clastix.github.io/charts --version 0.0.0+latest" +
				" --namespace kamaji-system --create-namespace --set image.tag=26.8.2-edge" +
				" --set image.pullPolicy=IfNotPresent --set resources=null --set telemetry.disabled=true" +
				" --set kamaji-etcd.image.repository=quay.io/coreos/etcd --set kamaji-etcd.image.tag=v3.6.12" +
				" --set kamaji-etcd.image.pullPolicy=IfNotPresent" +
				" --set kamaji-etcd.jobs.kubectl.image=clastix/kubectl --set kamaji-etcd.jobs.kubectl.tag=v1.35" +
				" --set kamaji-etcd.jobs.etcd.image=quay.io/coreos/etcd --set kamaji-etcd.jobs.etcd.tag=v3.5.6" +
				" --set kamaji-etcd.jobs.etcd.pullPolicy=IfNotPresent --wait --timeout 10m0s"},
		{"hami with rendered values, post-rendered by labctl, no helm wait",
			HAMiChart(l, "/s/values/hami-tenant-a.yaml", "/bin/labctl", "/s/values/hami-scheduler-config.yaml", 5*time.Minute),
			"upgrade --install hami hami --repo https://project-hami.github.io/HAMi/ --version 2.10.0" +
				" --namespace kube-system --create-namespace --values /s/values/hami-tenant-a.yaml --timeout 5m0s" +
				" --post-renderer /bin/labctl --post-renderer-args internal --post-renderer-args hami-post-render" +
				" --post-renderer-args --scheduler-config --post-renderer-args /s/values/hami-scheduler-config.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(helm.UpgradeInstallArgs(tt.chart), " "); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	if got := helm.StatusArgs("hami", "kube-system"); !reflect.DeepEqual(got,
		[]string{"status", "hami", "--namespace", "kube-system", "--output", "json"}) {
		t.Errorf("HelmStatusArgs = %q", got)
	}
}
