package lab

import (
	"fmt"
	"reflect"
	"strings"
)

// fieldDocs describes every lab-file field by its path. fileReference walks the
// Go types and fails on a field missing here, so the README's reference
// cannot drift from the structs.
var fieldDocs = map[string]string{
	"apiVersion":             "Schema version; must be `" + apiVersion + "` when set.",
	"kind":                   "Must be `" + kind + "` when set.",
	"name":                   "Lab name (DNS-1123 label). Prefixes the kind cluster and every worker container.",
	"versions":               "Pinned versions; every field left out takes the default shown.",
	"versions.kindNodeImage": "Management cluster node image (kind's own default for the kind module); an image reference.",
	"versions.workerNodeImage": "Tenants' worker node image; an image reference whose tag, if any, " +
		"is `versions.kubernetes`. For registries that serve rebuilt node images: a digest pin names one manifest.",
	"versions.kubernetes": "Tenant control-plane and worker Kubernetes version. Supported: " +
		strings.Join(SupportedKubernetes(), ", ") + ".",
	"versions.kamajiChart": "clastix/kamaji chart version, exact SemVer (`0.0.0+latest` is current; " +
		"the old 1.0.0 chart supports Kubernetes <= v1.30).",
	"versions.kamajiImage":          "Kamaji controller image tag (an OCI tag).",
	"versions.certManager":          "jetstack/cert-manager chart version, exact SemVer (a leading `v` allowed).",
	"versions.hamiChart":            "HAMi chart version, exact SemVer.",
	"versions.hamiImage":            "HAMi scheduler image tag (chart `global.imageTag`, an OCI tag).",
	"versions.hamiMockDevicePlugin": "projecthami/mock-device-plugin image tag (an OCI tag).",
	"versions.konnectivity":         "Konnectivity server and agent version (their image tag).",
	"hami":                          "Settings passed to HAMi's scheduler.",
	"hami.splitCount":               "How many pods may share one card (HAMi `deviceSplitCount`), 1-" + fmt.Sprint(maxSplitCount) + ".",
	"hami.nodeLockTimeout":          "HAMi `--node-lock-timeout`, a Go duration.",
	"hami.kubeQPS": "HAMi `--kube-qps`: the scheduler extender's own API request rate " +
		"(HAMi's default is 5, which stretches ten back-to-back binds to ~35 s).",
	"hami.kubeBurst": "HAMi `--kube-burst`, at least `kubeQPS` (HAMi's default is 10).",
	"hami.podInitialBackoffSeconds": "kube-scheduler's `podInitialBackoffSeconds` in HAMi's scheduler " +
		"configuration: first retry delay of a pod whose bind failed.",
	"hami.podMaxBackoffSeconds": "kube-scheduler's `podMaxBackoffSeconds` (its default is 10): " +
		"the longest retry delay; node-lock losers retry within it.",
	"tenants": "Tenant control planes, 1-" + fmt.Sprint(MaxTenants) + ".",
	"tenants[].name": "Tenant name (DNS-1123 label, unique); " +
		"names its TenantControlPlane and management-cluster namespace, so " + reservedTenantList() + " are reserved.",
	"tenants[].ports": "NodePorts on the management cluster (" + fmt.Sprint(minNodePort) + "-" +
		fmt.Sprint(maxNodePort) + ", unique across the lab).",
	"tenants[].ports.apiServer": "Tenant API server NodePort; omitted: the next free port from " +
		fmt.Sprint(defaultAPIServerPort) + ".",
	"tenants[].ports.konnectivity": "Konnectivity server NodePort; omitted: the next free port from " +
		fmt.Sprint(defaultKonnectivityPort) + ".",
	"tenants[].workers": "Worker nodes of the tenant, 1-" + fmt.Sprint(maxWorkers) + ".",
	"tenants[].workers[].name": "Worker name (DNS-1123 label, unique in its tenant). " +
		"The node is `<lab>-<tenant>-<worker>`, at most " + fmt.Sprint(maxNodeNameLen) +
		" characters, unique in the lab and not the management node `<lab>-control-plane`.",
	"tenants[].workers[].gpus": "Simulated cards, grouped by model; at most " + fmt.Sprint(maxCardsPerWorker) +
		" cards per worker (NVIDIA's mock NVML library, through which HAMi's device plugin reads them, serves at most " +
		fmt.Sprint(maxCardsPerWorker) + ").",
	"tenants[].workers[].gpus[].model": "A catalog model (below) or `custom`.",
	"tenants[].workers[].gpus[].count": "Number of cards of this model (required, at least 1).",
	"tenants[].workers[].gpus[].memoryMB": "Card memory in MB; overrides the catalog, required for `custom` (at most " +
		fmt.Sprint(maxMemoryMB) + ").",
	"tenants[].workers[].gpus[].type": "HAMi device type; overrides the catalog, required for `custom`; " +
		"must start with `NVIDIA` (HAMi registers any other name as `NVIDIA-<name>`), at most " + fmt.Sprint(maxTypeLen) +
		" printable characters.",
}

// fieldDefaults are the defaults shown in the reference, from the same
// constants applyDefaults uses.
func fieldDefaults() map[string]string {
	d := DefaultVersions()
	return map[string]string{
		"apiVersion": "`" + apiVersion + "`", "kind": "`" + kind + "`", "name": "`" + defaultName + "`",
		"versions.kindNodeImage": "`" + d.KindNodeImage + "`", "versions.kubernetes": "`" + d.Kubernetes + "`",
		"versions.workerNodeImage": "kind's published image for `versions.kubernetes`",
		"versions.kamajiChart":     "`" + d.KamajiChart + "`", "versions.kamajiImage": "`" + d.KamajiImage + "`",
		"versions.certManager": "`" + d.CertManager + "`", "versions.hamiChart": "`" + d.HAMiChart + "`",
		"versions.hamiImage": "`" + d.HAMiImage + "`", "versions.hamiMockDevicePlugin": "`" + d.HAMiMockDevicePlugin + "`",
		"versions.konnectivity": "`" + d.Konnectivity + "`",
		"hami.splitCount":       fmt.Sprint(defaultSplitCount), "hami.nodeLockTimeout": "`" + defaultNodeLockTimeout + "`",
		"hami.kubeQPS": fmt.Sprint(defaultKubeQPS), "hami.kubeBurst": fmt.Sprint(defaultKubeBurst),
		"hami.podInitialBackoffSeconds": fmt.Sprint(defaultPodInitialBackoffSeconds),
		"hami.podMaxBackoffSeconds":     fmt.Sprint(defaultPodMaxBackoffSeconds),
		"tenants[].ports.apiServer":     "allocated", "tenants[].ports.konnectivity": "allocated",
		"tenants[].workers[].gpus[].memoryMB": "from the catalog", "tenants[].workers[].gpus[].type": "from the catalog",
	}
}

// fileReference is the Markdown reference of the lab file: every field with its
// type, default and meaning, then the GPU catalog. README.md embeds it.
func fileReference() (string, error) {
	var rows []string
	var missing []string
	defaults := fieldDefaults()
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := strings.Split(f.Tag.Get("json"), ",")[0]
			if name == "" || name == "-" {
				continue
			}
			path := strings.TrimPrefix(prefix+"."+name, ".")
			doc, ok := fieldDocs[path]
			if !ok {
				missing = append(missing, path)
			}
			def := defaults[path]
			if def == "" {
				def = "—"
			}
			rows = append(rows, fmt.Sprintf("| `%s` | %s | %s | %s |", path, typeName(f.Type), def, doc))
			switch ft := f.Type; {
			case ft.Kind() == reflect.Struct:
				walk(path, ft)
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
				walk(path+"[]", ft.Elem())
			}
		}
	}
	walk("", reflect.TypeOf(Lab{}))
	if len(missing) > 0 {
		return "", fmt.Errorf("lab reference: fields without a description in fieldDocs: %s", strings.Join(missing, ", "))
	}
	var b strings.Builder
	b.WriteString("Generated from the Go types in `ci/lab` (regenerate: `go test ./ci/lab -run TestReadme -update`).\n")
	fmt.Fprintf(&b, "A lab file is YAML, or JSON when its name ends in `.json`, decoded strictly: "+
		"unknown fields are errors. At most %d MiB. `labctl validate -f lab.yaml` lists every problem (the first %d, "+
		"then how many more); `labctl plan -f lab.yaml` shows the resolved lab.\n\n", maxFileBytes>>20, maxListedProblems)
	b.WriteString("| Field | Type | Default | Meaning |\n|---|---|---|---|\n")
	for _, r := range rows {
		b.WriteString(r + "\n")
	}
	b.WriteString("\nGPU catalog (`model`):\n\n| Model | Memory (MB) | HAMi type |\n|---|---|---|\n")
	for _, n := range CatalogNames() {
		m := Catalog[n]
		fmt.Fprintf(&b, "| `%s` | %d | `%s` |\n", n, m.MemoryMB, m.Type)
	}
	b.WriteString("\nThe seed lab (used when no file is given):\n\n```yaml\n")
	b.WriteString(strings.TrimSpace(string(defaultLab)))
	b.WriteString("\n```\n")
	return b.String(), nil
}

func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int32, reflect.Int64:
		return "integer"
	case reflect.Struct:
		return "object"
	case reflect.Slice:
		return "list of " + typeName(t.Elem()) + "s"
	}
	return t.Kind().String()
}
