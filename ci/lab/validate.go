package lab

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Limits that catch typos (a memory in bytes, a count of 100) rather than
// describe real hardware.
const (
	MaxTenants = 20
	maxWorkers = 10
	// maxCardsPerWorker is real, not a typo guard: every worker's cards are
	// served to HAMi's device plugin by one instance of NVIDIA's mock NVML
	// library, which holds at most 8 devices (NVIDIA/k8s-test-infra
	// pkg/gpu/mocknvml/engine/device.go:37@0eeb2ee5 MaxDevices; engine.go:139
	// stops there, so a ninth card would silently not exist).
	maxCardsPerWorker = 8
	maxMemoryMB       = 1 << 20 // 1 TiB per card
	maxSplitCount     = 100
	maxKubeQPS        = 1000
	maxBackoffSeconds = 300
	maxNameLen        = 40 // container names are <lab>-<tenant>-<worker>
	// maxTypeLen is far above every catalog type (at most 21 characters):
	// it stops a pasted blob, not a real card name.
	maxTypeLen = 64
)

// printableType: printable ASCII, no leading '-' or space, at most maxTypeLen.
func printableType(s string) bool {
	if len(s) > maxTypeLen || s[0] == '-' || s[0] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// validate returns every problem in the lab at once. Each error names the
// field path, the bad value and what is accepted.
func (l *Lab) validate() field.ErrorList {
	var errs field.ErrorList
	if l.APIVersion != apiVersion {
		errs = append(errs, field.NotSupported(field.NewPath("apiVersion"), l.APIVersion, []string{apiVersion}))
	}
	if l.Kind != kind {
		errs = append(errs, field.NotSupported(field.NewPath("kind"), l.Kind, []string{kind}))
	}
	errs = append(errs, validateName(field.NewPath("name"), l.Name)...)
	errs = append(errs, l.validateVersions(field.NewPath("versions"))...)
	errs = append(errs, l.validateHAMi(field.NewPath("hami"))...)

	tp := field.NewPath("tenants")
	switch {
	case len(l.Tenants) == 0:
		errs = append(errs, field.Required(tp, "a lab needs at least one tenant, e.g. "+
			"`tenants: [{name: tenant-a, workers: [{name: worker, gpus: [{model: L4, count: 1}]}]}]`"))
	case len(l.Tenants) > MaxTenants:
		errs = append(errs, field.TooMany(tp, len(l.Tenants), MaxTenants))
	}
	names := map[string]int{}
	ports := map[int32]string{}
	for i, t := range l.Tenants {
		p := tp.Index(i)
		errs = append(errs, validateTenantName(p.Child("name"), t.Name)...)
		if j, dup := names[t.Name]; dup && t.Name != "" {
			errs = append(errs, field.Duplicate(p.Child("name"), fmt.Sprintf("%s (also tenants[%d])", t.Name, j)))
		} else {
			names[t.Name] = i
		}
		for _, pp := range []struct {
			name string
			port int32
		}{{"apiServer", t.Ports.APIServer}, {"konnectivity", t.Ports.Konnectivity}} {
			path := p.Child("ports", pp.name)
			if pp.port == 0 && len(l.Tenants) > MaxTenants {
				continue // the allocator ran out because of the tenant count, reported on tenants
			}
			if pp.port == 0 {
				errs = append(errs, field.Required(path, "no NodePort was allocated: validate a lab after ApplyDefaults, or set one"))
				continue
			}
			if pp.port < minNodePort || pp.port > maxNodePort {
				errs = append(errs, field.Invalid(path, pp.port,
					fmt.Sprintf("must be a NodePort in %d-%d, or omitted to allocate one", minNodePort, maxNodePort)))
				continue
			}
			if other, taken := ports[pp.port]; taken {
				errs = append(errs, field.Duplicate(path, fmt.Sprintf("%d (also %s)", pp.port, other)))
				continue
			}
			ports[pp.port] = path.String()
		}
		errs = append(errs, validateWorkers(p.Child("workers"), t.Workers)...)
	}
	return append(errs, l.validateNodeNames(tp)...)
}

// validateTenantName adds to the name rules the names the lab keeps for
// itself, with the reason.
func validateTenantName(p *field.Path, name string) field.ErrorList {
	if errs := validateName(p, name); len(errs) > 0 {
		return errs
	}
	if why := reservedTenant(name); why != "" {
		return field.ErrorList{field.Invalid(p, name, "is reserved: "+why+"; choose another tenant name")}
	}
	return nil
}

func validateName(p *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "a DNS-1123 label such as \"tenant-a\"")}
	}
	var errs field.ErrorList
	tooLong := len(name) > maxNameLen
	for _, msg := range validation.IsDNS1123Label(name) {
		if tooLong && msg == validation.MaxLenError(validation.DNS1123LabelMaxLength) {
			continue // the lab's own, lower, limit below says it
		}
		errs = append(errs, field.Invalid(p, name, "must be a DNS-1123 label (lowercase letters, digits and '-', "+
			"starting and ending with a letter or digit): "+msg))
	}
	if tooLong {
		errs = append(errs, field.TooLong(p, name, maxNameLen))
	}
	return errs
}

func validateWorkers(p *field.Path, workers []Worker) field.ErrorList {
	var errs field.ErrorList
	switch {
	case len(workers) == 0:
		errs = append(errs, field.Required(p,
			"a tenant needs at least one worker, e.g. `workers: [{name: worker, gpus: [{model: L4, count: 1}]}]`"))
	case len(workers) > maxWorkers:
		errs = append(errs, field.TooMany(p, len(workers), maxWorkers))
	}
	names := map[string]int{}
	for i, w := range workers {
		wp := p.Index(i)
		fix := fmt.Sprintf("worker %q holds at most %d cards (NVIDIA's mock NVML library, which HAMi's device "+
			"plugin reads them through, serves at most %d); put the rest on another worker of the same tenant",
			w.Name, maxCardsPerWorker, maxCardsPerWorker)
		errs = append(errs, validateName(wp.Child("name"), w.Name)...)
		if j, dup := names[w.Name]; dup && w.Name != "" {
			errs = append(errs, field.Duplicate(wp.Child("name"), fmt.Sprintf("%s (also workers[%d])", w.Name, j)))
		}
		names[w.Name] = i
		gp := wp.Child("gpus")
		if len(w.GPUs) == 0 {
			errs = append(errs, field.Required(gp, "a worker needs at least one GPU group, e.g. `gpus: [{model: L4, count: 2}]`"))
		}
		cards, countsOK := 0, true
		for gi, g := range w.GPUs {
			errs = append(errs, validateGroup(gp.Index(gi), g, fix)...)
			cards += g.Count
			countsOK = countsOK && g.Count >= 1 && g.Count <= maxCardsPerWorker
		}
		// A group's own bad count is reported on it, not again as the total.
		if countsOK && cards > maxCardsPerWorker {
			errs = append(errs, field.Invalid(gp, cards, fix))
		}
	}
	return errs
}

// validateGroup checks one GPU group; tooMany is the message for a count
// above maxCardsPerWorker (it names the worker and the fix).
func validateGroup(p *field.Path, g GPUGroup, tooMany string) field.ErrorList {
	var errs field.ErrorList
	_, known := Catalog[g.Model]
	switch {
	case g.Model == "":
		errs = append(errs, field.Required(p.Child("model"), "one of "+strings.Join(CatalogNames(), ", ")+
			", or \"custom\" with memoryMB and type"))
	case g.Model == customModel:
		if g.MemoryMB == 0 {
			errs = append(errs, field.Required(p.Child("memoryMB"), "a custom model needs its memory in MB, e.g. 32768"))
		}
		if g.Type == "" {
			errs = append(errs, field.Required(p.Child("type"), "a custom model needs HAMi's device type, e.g. \"NVIDIA-Tesla-V100-PCIE-32GB\""))
		}
	case !known:
		errs = append(errs, field.NotSupported(p.Child("model"), g.Model, append(CatalogNames(), customModel)))
	}
	if g.Count < 1 {
		errs = append(errs, field.Invalid(p.Child("count"), g.Count, "must be at least 1 (the number of cards of this model)"))
	} else if g.Count > maxCardsPerWorker {
		errs = append(errs, field.Invalid(p.Child("count"), g.Count, tooMany))
	}
	if g.MemoryMB < 0 || g.MemoryMB > maxMemoryMB {
		errs = append(errs, field.Invalid(p.Child("memoryMB"), g.MemoryMB,
			fmt.Sprintf("must be between 1 and %d MB (1 TiB); 80 GB is 81920", maxMemoryMB)))
	}
	if g.Type != "" && !strings.Contains(strings.ToUpper(g.Type), "NVIDIA") {
		errs = append(errs, field.Invalid(p.Child("type"), g.Type,
			"must contain \"NVIDIA\": HAMi's NVIDIA backend ignores cards whose type does not contain it"))
	}
	if g.Type != "" && strings.ContainsAny(g.Type, ",:;") {
		errs = append(errs, field.Invalid(p.Child("type"), g.Type, "must not contain ',', ':' or ';' (HAMi's device-string separators)"))
	}
	if g.Type != "" && !printableType(g.Type) {
		errs = append(errs, field.Invalid(p.Child("type"), g.Type, fmt.Sprintf("must be at most %d printable "+
			"ASCII characters, not starting with '-' or a space (catalog types are like \"NVIDIA-L4\")", maxTypeLen)))
	} else if g.Type != "" && strings.Contains(strings.ToUpper(g.Type), "NVIDIA") && !strings.HasPrefix(g.Type, "NVIDIA") {
		// The mock NVML library names the card with the type, and HAMi's
		// device plugin registers a name that does not start with "NVIDIA"
		// as "NVIDIA-<name>" (HAMi pkg/device-plugin/nvidiadevice/nvinternal/
		// plugin/register.go:170-173@v2.10.0): the card would register as
		// another type than the lab file's.
		errs = append(errs, field.Invalid(p.Child("type"), g.Type, "must start with \"NVIDIA\" (upper case): "+
			"HAMi's device plugin registers any other name as \"NVIDIA-<name>\", another type than this one"))
	}
	return errs
}

func (l *Lab) validateHAMi(p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if l.HAMi.SplitCount < 1 || l.HAMi.SplitCount > maxSplitCount {
		errs = append(errs, field.Invalid(p.Child("splitCount"), l.HAMi.SplitCount,
			fmt.Sprintf("must be between 1 and %d (HAMi's default is 10)", maxSplitCount)))
	}
	d, err := time.ParseDuration(l.HAMi.NodeLockTimeout)
	if err != nil || d <= 0 {
		errs = append(errs, field.Invalid(p.Child("nodeLockTimeout"), l.HAMi.NodeLockTimeout,
			"must be a positive Go duration such as \"5m\" or \"30s\""))
	}
	if l.HAMi.KubeQPS < 1 || l.HAMi.KubeQPS > maxKubeQPS {
		errs = append(errs, field.Invalid(p.Child("kubeQPS"), l.HAMi.KubeQPS,
			fmt.Sprintf("must be between 1 and %d (HAMi's default is 5, the lab's %d)", maxKubeQPS, defaultKubeQPS)))
	}
	// A bound taken from another field applies only when that field is
	// valid: a bad kubeQPS is reported once, not again on kubeBurst.
	qpsOK := l.HAMi.KubeQPS >= 1 && l.HAMi.KubeQPS <= maxKubeQPS
	if l.HAMi.KubeBurst < 1 || l.HAMi.KubeBurst > 2*maxKubeQPS || qpsOK && l.HAMi.KubeBurst < l.HAMi.KubeQPS {
		errs = append(errs, field.Invalid(p.Child("kubeBurst"), l.HAMi.KubeBurst, fmt.Sprintf("must be between "+
			"kubeQPS (%d) and %d (HAMi's default is 10, the lab's %d)", l.HAMi.KubeQPS, 2*maxKubeQPS, defaultKubeBurst)))
	}
	initialOK := l.HAMi.PodInitialBackoffSeconds >= 1 && l.HAMi.PodInitialBackoffSeconds <= maxBackoffSeconds
	if !initialOK {
		errs = append(errs, field.Invalid(p.Child("podInitialBackoffSeconds"), l.HAMi.PodInitialBackoffSeconds,
			fmt.Sprintf("must be between 1 and %d seconds (kube-scheduler's default is 1)", maxBackoffSeconds)))
	}
	if l.HAMi.PodMaxBackoffSeconds < 1 || l.HAMi.PodMaxBackoffSeconds > maxBackoffSeconds ||
		initialOK && l.HAMi.PodMaxBackoffSeconds < l.HAMi.PodInitialBackoffSeconds {
		errs = append(errs, field.Invalid(p.Child("podMaxBackoffSeconds"), l.HAMi.PodMaxBackoffSeconds,
			fmt.Sprintf("must be between podInitialBackoffSeconds (%d) and %d seconds (kube-scheduler's default is 10)",
				l.HAMi.PodInitialBackoffSeconds, maxBackoffSeconds)))
	}
	return errs
}
