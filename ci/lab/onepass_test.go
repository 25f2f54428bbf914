package lab

import "testing"

// TestOnePassListsEveryIndependentProblem: a value of the wrong kind no
// longer hides the rest of the file, and no problem is reported twice (once
// as itself, once as a consequence of it).
func TestOnePassListsEveryIndependentProblem(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"a type error and a validation error together",
			"hami: {splitCount: ten, nodeLockTimeout: 5}\n" + labWith("l", "a: w"),
			[]string{
				`hami.splitCount: Invalid value: "ten": must be a whole number`,
				`hami.nodeLockTimeout: Invalid value: "5": must be a positive Go duration such as "5m" or "30s"`,
			}},
		{"a type error, an unknown field and validation errors elsewhere",
			"colour: blue\nversions: {kubernetes: v9.9.9}\ntenants:\n  - {name: a, workers: [{name: w, gpus: [L4]}]}\n" +
				"  - {name: B, workers: [{name: w, gpus: [{model: L4, count: 0}]}]}\n",
			[]string{
				`colour: unknown field "colour" (the lab has apiVersion, kind, name, versions, hami, tenants)`,
				`tenants[0].workers[0].gpus[0]: Invalid value: "L4": must be a mapping of fields (model, count, memoryMB, type)`,
				`versions.kubernetes: Invalid value: "v9.9.9": unsupported tenant Kubernetes version: ` +
					`use one of v1.34.11, v1.35.8, v1.36.4 (a kindest/node image must exist for kind v0.33.0 ` +
					`and Kamaji 26.8.2-edge accepts minors up to 1.36)`,
				`tenants[1].name: Invalid value: "B": must be a DNS-1123 label (lowercase letters, digits and '-', ` +
					`starting and ending with a letter or digit): a lowercase RFC 1123 label must consist of lower ` +
					`case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. ` +
					`'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
				`tenants[1].workers[0].gpus[0].count: Invalid value: 0: must be at least 1 (the number of cards of this model)`,
			}},
		{"a list of the wrong kind is not also missing",
			"tenants: {name: a}\nhami: {splitCount: 0.5}\n",
			[]string{
				`hami.splitCount: Invalid value: 0.5: must be a whole number (no fraction or exponent)`,
				`tenants: Invalid value: must be a list of tenants, not a mapping`,
			}},
		{"a bad kubeQPS is not also kubeBurst's",
			"hami: {kubeQPS: 5000}\n" + labWith("l", "a: w"),
			[]string{`hami.kubeQPS: Invalid value: 5000: must be between 1 and 1000 (HAMi's default is 5, the lab's 20)`}},
		{"kubeBurst below a valid kubeQPS",
			"hami: {kubeQPS: 30, kubeBurst: 10}\n" + labWith("l", "a: w"),
			[]string{`hami.kubeBurst: Invalid value: 10: must be between kubeQPS (30) and 2000 (HAMi's default is 10, the lab's 40)`}},
		{"a bad initial backoff is not also the maximum's",
			"hami: {podInitialBackoffSeconds: 500, podMaxBackoffSeconds: 60}\n" + labWith("l", "a: w"),
			[]string{`hami.podInitialBackoffSeconds: Invalid value: 500: must be between 1 and 300 seconds (kube-scheduler's default is 1)`}},
		{"a group's count is not also the worker's total",
			"tenants:\n  - {name: a, workers: [{name: w, gpus: [{model: L4, count: 100}]}]}\n",
			[]string{`tenants[0].workers[0].gpus[0].count: Invalid value: 100: worker "w" holds at most 8 cards ` +
				`(NVIDIA's mock NVML library, which HAMi's device plugin reads them through, serves at most 8); ` +
				`put the rest on another worker of the same tenant`}},
		{"the worker's total when every count is valid",
			"tenants:\n  - {name: a, workers: [{name: w, gpus: [{model: L4, count: 6}, {model: T4, count: 3}]}]}\n",
			[]string{`tenants[0].workers[0].gpus: Invalid value: 9: worker "w" holds at most 8 cards ` +
				`(NVIDIA's mock NVML library, which HAMi's device plugin reads them through, serves at most 8); ` +
				`put the rest on another worker of the same tenant`}},
		{"a type said in full",
			"tenants:\n  - {name: a, workers: [{name: w, gpus: [{model: custom, count: 1, memoryMB: 1024, type: AMD-MI300}]}]}\n",
			[]string{`tenants[0].workers[0].gpus[0].type: Invalid value: "AMD-MI300": must contain "NVIDIA": ` +
				`HAMi's NVIDIA backend ignores cards whose type does not contain it`}},
		{"a type that is a blob",
			"tenants:\n  - {name: a, workers: [{name: w, gpus: [{model: L4, count: 1, type: \"-NVIDIA\\n\"}]}]}\n",
			[]string{`tenants[0].workers[0].gpus[0].type: Invalid value: "-NVIDIA\n": must be at most 64 printable ` +
				`ASCII characters, not starting with '-' or a space (catalog types are like "NVIDIA-L4")`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantProblems(t, tc.src, formatYAML, tc.want...)
		})
	}
}

// TestUnallocatedPortIsRequired: validate on a lab that was not defaulted
// says so instead of calling port 0 out of range.
func TestUnallocatedPortIsRequired(t *testing.T) {
	l := Default()
	l.Tenants[1].Ports.Konnectivity = 0
	errs := l.validate()
	if len(errs) != 1 || errs[0].Error() != "tenants[1].ports.konnectivity: Required value: no NodePort was allocated: "+
		"validate a lab after ApplyDefaults, or set one" {
		t.Errorf("errors %v", errs)
	}
}
