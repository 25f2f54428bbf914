package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	schedv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// chartRender is helm's real rendering of HAMi chart 2.10.0 with the seed
// lab's tenant-a values as the lab renders them now: no device plugin, the
// lab's device file (see testdata/hami-chart-2.10.0/README.md).
func chartRender(t *testing.T) []byte {
	t.Helper()
	return mustRead(t, "testdata/hami-chart-2.10.0/tenant-a-lab-device-file.yaml")
}

// chartDefaultRender is the same chart rendered with the values the lab had
// before: the mock device plugin on and the chart's own device file (the
// template's fallback), the file the lab now replaces.
func chartDefaultRender(t *testing.T) []byte {
	t.Helper()
	return mustRead(t, "testdata/hami-chart-2.10.0/tenant-a.yaml")
}

// chartObjects finds the scheduler ConfigMap and Deployment in a rendering.
func chartObjects(t *testing.T, manifests []byte) (*corev1.ConfigMap, *appsv1.Deployment) {
	t.Helper()
	var cm *corev1.ConfigMap
	var d *appsv1.Deployment
	for _, doc := range mustSplitYAMLDocs(t, manifests) {
		var meta struct {
			Kind     string                 `json:"kind"`
			Metadata corev1.ObjectReference `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil || meta.Metadata.Name != HAMiSchedulerObject {
			continue
		}
		switch meta.Kind {
		case "ConfigMap":
			cm = &corev1.ConfigMap{}
			if err := yaml.Unmarshal([]byte(doc), cm); err != nil {
				t.Fatal(err)
			}
		case "Deployment":
			d = &appsv1.Deployment{}
			if err := yaml.Unmarshal([]byte(doc), d); err != nil {
				t.Fatal(err)
			}
		}
	}
	if cm == nil || d == nil {
		t.Fatalf("rendering lacks ConfigMap or Deployment %s", HAMiSchedulerObject)
	}
	return cm, d
}

func container(t *testing.T, d *appsv1.Deployment, name string) corev1.Container {
	t.Helper()
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("Deployment %s has no container %s", d.Name, name)
	return corev1.Container{}
}

func decodeSchedulerConfig(t *testing.T, raw string) schedv1.KubeSchedulerConfiguration {
	t.Helper()
	var cfg schedv1.KubeSchedulerConfiguration
	if err := yaml.UnmarshalStrict([]byte(raw), &cfg); err != nil {
		t.Fatalf("decode scheduler config: %v\n%s", err, raw)
	}
	return cfg
}

// The extender command line gpu-lab renders for a place is exactly the one
// helm renders from the lab's values.
func TestHAMiExtenderArgsAreTheChartsCommand(t *testing.T) {
	_, d := chartObjects(t, chartRender(t))
	c := container(t, d, "vgpu-scheduler-extender")
	if len(c.Command) == 0 || c.Command[0] != "scheduler" {
		t.Fatalf("extender command = %v", c.Command)
	}
	got, err := HAMiExtenderArgs(lab.Default(), ChartPlace())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, c.Command[1:]) {
		t.Errorf("HAMiExtenderArgs =\n  %s\nhelm rendered\n  %s", strings.Join(got, " "), strings.Join(c.Command[1:], " "))
	}
	if _, err := HAMiExtenderArgs(lab.Default(), HAMiPlace{}); err == nil {
		t.Error("an empty place was accepted")
	}
}

// The extender's environment is the chart's: the names in its order, the
// namespace its pod runs in and the node lock expiry helm rendered.
func TestHAMiExtenderEnvIsTheCharts(t *testing.T) {
	_, d := chartObjects(t, chartRender(t))
	c := container(t, d, "vgpu-scheduler-extender")
	var rendered []string
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.name":
			rendered = append(rendered, e.Name+"=pod")
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace":
			rendered = append(rendered, e.Name+"="+HAMiNamespace) // helm template -n kube-system
		default:
			rendered = append(rendered, e.Name+"="+e.Value)
		}
	}
	got := HAMiExtenderEnv(HAMiPlace{PodName: "pod"})
	if !slices.Equal(got, rendered) {
		t.Errorf("HAMiExtenderEnv = %v, helm rendered %v", got, rendered)
	}
}

// gpu-lab's scheduler configuration is the chart's, plus the lab's backoff
// and nothing else: decoded, they are equal once the backoff is set.
func TestHAMiSchedulerConfigIsTheChartsPlusBackoff(t *testing.T) {
	l := lab.Default()
	cm, d := chartObjects(t, chartRender(t))
	chart := decodeSchedulerConfig(t, cm.Data[HAMiSchedulerConfigKey])
	if chart.PodInitialBackoffSeconds != nil || chart.PodMaxBackoffSeconds != nil {
		t.Fatalf("the chart now sets a backoff (%v/%v): gpu-lab's override may be unnecessary", chart.PodInitialBackoffSeconds,
			chart.PodMaxBackoffSeconds)
	}
	initial, maxB := int64(l.HAMi.PodInitialBackoffSeconds), int64(l.HAMi.PodMaxBackoffSeconds)
	chart.PodInitialBackoffSeconds, chart.PodMaxBackoffSeconds = &initial, &maxB
	raw, err := HAMiSchedulerConfig(l, ChartPlace())
	if err != nil {
		t.Fatal(err)
	}
	ours := decodeSchedulerConfig(t, string(raw))
	if !reflect.DeepEqual(chart, ours) {
		a, _ := yaml.Marshal(chart)
		b, _ := yaml.Marshal(ours)
		t.Errorf("scheduler config differs from the chart's plus backoff:\nchart+backoff:\n%s\ngpu-lab:\n%s", a, b)
	}
	// The chart's kube-scheduler reads the ConfigMap at the path it mounts.
	ks := container(t, d, "kube-scheduler")
	if !slices.Contains(ks.Command, "--config=/config/"+HAMiSchedulerConfigKey) {
		t.Errorf("kube-scheduler command %v does not read /config/%s", ks.Command, HAMiSchedulerConfigKey)
	}
}

// The post-renderer replaces the chart's scheduler configuration with the
// lab's, stamps its hash on the pod template and leaves the rest alone.
func TestHAMiPostRender(t *testing.T) {
	l := lab.Default()
	in := chartRender(t)
	cfg, err := HAMiSchedulerConfig(l, ChartPlace())
	if err != nil {
		t.Fatal(err)
	}
	out, err := HAMiPostRender(in, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cm, d := chartObjects(t, out)
	if cm.Data[HAMiSchedulerConfigKey] != string(cfg) {
		t.Errorf("ConfigMap %s config.yaml =\n%s\nwant\n%s", cm.Name, cm.Data[HAMiSchedulerConfigKey], cfg)
	}
	sum := sha256.Sum256(cfg)
	if got := d.Spec.Template.Annotations[AnnoSchedulerConfig]; got != hex.EncodeToString(sum[:]) {
		t.Errorf("pod template annotation %s = %q", AnnoSchedulerConfig, got)
	}
	// Every other document is passed through byte for byte.
	before, after := mustSplitYAMLDocs(t, in), mustSplitYAMLDocs(t, out)
	if len(before) != len(after) {
		t.Fatalf("documents: %d in, %d out", len(before), len(after))
	}
	changed := 0
	for i := range before {
		if strings.TrimLeft(before[i], "\n") != after[i] {
			changed++
		}
	}
	if changed != 2 {
		t.Errorf("%d documents changed, want 2 (the ConfigMap and the Deployment)", changed)
	}

	withoutCM := bytes.Replace(in, []byte("kind: ConfigMap\nmetadata:\n  name: hami-scheduler\n"),
		[]byte("kind: ConfigMap\nmetadata:\n  name: renamed\n"), 1)
	if _, err := HAMiPostRender(withoutCM, cfg); err == nil || !strings.Contains(err.Error(), "found ConfigMap: false") {
		t.Errorf("rendering without the ConfigMap: err = %v", err)
	}
}

// The device configuration's nvidia block is the chart's, field for field
// (MIG profiles aside: the lab's cards have none).
func TestHAMiDeviceConfigIsTheChartsNvidiaBlock(t *testing.T) {
	var chartCM *corev1.ConfigMap
	for _, doc := range mustSplitYAMLDocs(t, chartDefaultRender(t)) {
		var cm corev1.ConfigMap
		if yaml.Unmarshal([]byte(doc), &cm) == nil && cm.Kind == "ConfigMap" && cm.Name == HAMiSchedulerObject+"-device" {
			chartCM = &cm
		}
	}
	if chartCM == nil {
		t.Fatalf("rendering has no ConfigMap %s-device", HAMiSchedulerObject)
	}
	var chart struct {
		NVIDIA nvidiaDeviceConfig `json:"nvidia"`
	}
	if err := yaml.Unmarshal([]byte(chartCM.Data["device-config.yaml"]), &chart); err != nil {
		t.Fatal(err)
	}
	if len(chart.NVIDIA.MigProfileAllowlist) == 0 {
		t.Fatal("the chart's nvidia block has no MIG profiles: did the decoding miss it?")
	}
	chart.NVIDIA.MigProfileAllowlist = nil
	ours := hamiDeviceConfigFor(lab.Default())
	if !reflect.DeepEqual(chart.NVIDIA, ours.NVIDIA) {
		t.Errorf("nvidia block:\nchart %+v\nours  %+v", chart.NVIDIA, ours.NVIDIA)
	}
	raw, err := HAMiDeviceConfigYAML(lab.Default())
	if err != nil {
		t.Fatal(err)
	}
	var back hamiDeviceConfig
	if err := yaml.UnmarshalStrict(raw, &back); err != nil || !reflect.DeepEqual(back, ours) {
		t.Errorf("rendered file does not decode back: %v\n%s", err, raw)
	}
}
