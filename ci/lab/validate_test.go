package lab

import (
	"errors"
	"strings"
	"testing"
)

// one wraps a tenants block in a minimal valid lab header.
func one(tenants string) string {
	return "apiVersion: gpu-lab.dev/v1alpha1\nkind: Lab\nname: t\ntenants:\n" + tenants
}

const okWorker = "    workers:\n      - name: w\n        gpus:\n          - {model: L4, count: 1}\n"

// TestValidationRules checks each rule with the smallest lab that breaks it:
// the error must name the field path and the bad value.
func TestValidationRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		yaml string
		want []string // substrings of the error text
	}{
		{"empty file", "", []string{"the lab file is empty"}},
		{"whitespace file", " \n\t\n", []string{"the lab file is empty"}},
		{"unknown top-level field", one("  - name: a\n"+okWorker) + "colour: blue\n", []string{`unknown field "colour"`}},
		{"unknown nested field",
			one("  - name: a\n    workers:\n      - name: w\n        gpus:\n          - {model: L4, count: 1, memory: 5}\n"),
			[]string{`unknown field "memory"`}},
		{"wrong apiVersion", "apiVersion: gpu-lab.dev/v2\n" + "tenants:\n  - name: a\n" + okWorker,
			[]string{`apiVersion: Unsupported value: "gpu-lab.dev/v2"`, `"gpu-lab.dev/v1alpha1"`}},
		{"wrong kind", "kind: Cluster\ntenants:\n  - name: a\n" + okWorker, []string{`kind: Unsupported value: "Cluster"`}},
		{"no tenants", "name: t\n", []string{"tenants: Required value"}},
		{"empty tenant name", one("  - name: \"\"\n" + okWorker), []string{"tenants[0].name: Required value"}},
		{"invalid tenant name", one("  - name: Tenant_B\n" + okWorker), []string{`tenants[0].name: Invalid value: "Tenant_B"`, "DNS-1123"}},
		{"duplicate tenant", one("  - name: a\n" + okWorker + "  - name: a\n" + okWorker),
			[]string{`tenants[1].name: Duplicate value: "a (also tenants[0])"`}},
		{"invalid lab name", "name: My.Lab\ntenants:\n  - name: a\n" + okWorker, []string{`name: Invalid value: "My.Lab"`}},
		{"no workers", one("  - name: a\n    workers: []\n"), []string{"tenants[0].workers: Required value"}},
		{"empty worker name", one("  - name: a\n    workers:\n      - name: \"\"\n        gpus: [{model: L4, count: 1}]\n"),
			[]string{"tenants[0].workers[0].name: Required value"}},
		{"invalid worker name", one("  - name: a\n    workers:\n      - name: -w\n        gpus: [{model: L4, count: 1}]\n"),
			[]string{`tenants[0].workers[0].name: Invalid value: "-w"`}},
		{"duplicate worker", one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: L4, count: 1}]}\n" +
			"      - {name: w, gpus: [{model: L4, count: 1}]}\n"),
			[]string{`tenants[0].workers[1].name: Duplicate value: "w (also workers[0])"`}},
		{"node name too long", "name: " + strings.Repeat("l", 31) + "\ntenants:\n  - name: " + strings.Repeat("t", 31) +
			"\n" + okWorker, []string{"tenants[0].workers[0].name", "is 65 characters"}},
		{"no gpus", one("  - name: a\n    workers:\n      - {name: w, gpus: []}\n"), []string{"tenants[0].workers[0].gpus: Required value"}},
		{"unknown model", one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: A100, count: 1}]}\n"),
			[]string{`tenants[0].workers[0].gpus[0].model: Unsupported value: "A100"`, `"A100-80GB"`, `"custom"`}},
		{"missing model", one("  - name: a\n    workers:\n      - {name: w, gpus: [{count: 1}]}\n"),
			[]string{"tenants[0].workers[0].gpus[0].model: Required value"}},
		{"count 0", one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: L4, count: 0}]}\n"),
			[]string{"tenants[0].workers[0].gpus[0].count: Invalid value: 0", "at least 1"}},
		{"count omitted", one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: L4}]}\n"),
			[]string{"tenants[0].workers[0].gpus[0].count: Invalid value: 0"}},
		{"count negative", one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: L4, count: -2}]}\n"),
			[]string{"gpus[0].count: Invalid value: -2"}},
		{"count absurd", one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: L4, count: 100}]}\n"),
			[]string{"gpus[0].count: Invalid value: 100", `worker "w" holds at most 8 cards`, "another worker"}},
		{"too many cards on a worker",
			one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: L4, count: 5}, {model: T4, count: 4}]}\n"),
			[]string{"tenants[0].workers[0].gpus: Invalid value: 9", `worker "w" holds at most 8 cards`}},
		{"type not starting with NVIDIA", one("  - name: a\n    workers:\n" +
			"      - {name: w, gpus: [{model: custom, count: 1, memoryMB: 1, type: nvidia-x}]}\n"),
			[]string{`gpus[0].type: Invalid value: "nvidia-x": must start with "NVIDIA"`}},
		{"NVIDIA inside the type", one("  - name: a\n    workers:\n" +
			"      - {name: w, gpus: [{model: custom, count: 1, memoryMB: 1, type: Tesla-NVIDIA}]}\n"),
			[]string{`gpus[0].type: Invalid value: "Tesla-NVIDIA": must start with "NVIDIA"`}},
		{"negative memory",
			one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: L4, count: 1, memoryMB: -1}]}\n"),
			[]string{"gpus[0].memoryMB: Invalid value: -1"}},
		{"absurd memory",
			one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: L4, count: 1, memoryMB: 85899345920}]}\n"),
			[]string{"gpus[0].memoryMB: Invalid value: 85899345920", "81920"}},
		{"custom without memory",
			one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: custom, count: 1, type: NVIDIA-X}]}\n"),
			[]string{"gpus[0].memoryMB: Required value"}},
		{"custom without type",
			one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: custom, count: 1, memoryMB: 1024}]}\n"),
			[]string{"gpus[0].type: Required value"}},
		{"type without NVIDIA", one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: custom, count: 1, " +
			"memoryMB: 1024, type: AMD-MI300}]}\n"), []string{`gpus[0].type: Invalid value: "AMD-MI300"`, "NVIDIA"}},
		{"type with separator",
			one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: L4, count: 1, type: \"NVIDIA,L4\"}]}\n"),
			[]string{`gpus[0].type: Invalid value: "NVIDIA,L4"`}},
		{"port below range", one("  - name: a\n    ports: {apiServer: 6443}\n" + okWorker),
			[]string{"tenants[0].ports.apiServer: Invalid value: 6443", "30000-32767"}},
		{"port above range", one("  - name: a\n    ports: {konnectivity: 40000}\n" + okWorker),
			[]string{"tenants[0].ports.konnectivity: Invalid value: 40000"}},
		{"port negative", one("  - name: a\n    ports: {apiServer: -1}\n" + okWorker), []string{"tenants[0].ports.apiServer: Invalid value: -1"}},
		{"ports collide within a tenant",
			one("  - name: a\n    ports: {apiServer: 31000, konnectivity: 31000}\n" + okWorker),
			[]string{`tenants[0].ports.konnectivity: Duplicate value: "31000 (also tenants[0].ports.apiServer)"`}},
		{"ports collide across tenants", one("  - name: a\n    ports: {apiServer: 31000}\n" +
			okWorker + "  - name: b\n    ports: {konnectivity: 31000}\n" + okWorker),
			[]string{`tenants[1].ports.konnectivity: Duplicate value: "31000 (also tenants[0].ports.apiServer)"`}},
		{"unsupported kubernetes", "versions: {kubernetes: v1.37.0}\ntenants:\n  - name: a\n" + okWorker,
			[]string{`versions.kubernetes: Invalid value: "v1.37.0"`, "v1.36.4"}},
		{"kubernetes garbage", "versions: {kubernetes: latest}\ntenants:\n  - name: a\n" + okWorker,
			[]string{`versions.kubernetes: Invalid value: "latest"`}},
		{"split count zero is defaulted, negative is not", "hami: {splitCount: -1}\ntenants:\n  - name: a\n" + okWorker,
			[]string{"hami.splitCount: Invalid value: -1"}},
		{"split count absurd", "hami: {splitCount: 1000}\ntenants:\n  - name: a\n" + okWorker, []string{"hami.splitCount: Invalid value: 1000"}},
		{"bad lock timeout", "hami: {nodeLockTimeout: soon}\ntenants:\n  - name: a\n" + okWorker,
			[]string{`hami.nodeLockTimeout: Invalid value: "soon"`}},
		{"negative lock timeout", "hami: {nodeLockTimeout: -5s}\ntenants:\n  - name: a\n" + okWorker,
			[]string{`hami.nodeLockTimeout: Invalid value: "-5s"`}},
		{"negative kube QPS", "hami: {kubeQPS: -1}\ntenants:\n  - name: a\n" + okWorker, []string{"hami.kubeQPS: Invalid value: -1"}},
		{"burst below QPS", "hami: {kubeQPS: 30, kubeBurst: 10}\ntenants:\n  - name: a\n" + okWorker,
			[]string{"hami.kubeBurst: Invalid value: 10", "kubeQPS (30)"}},
		{"negative initial backoff", "hami: {podInitialBackoffSeconds: -1}\ntenants:\n  - name: a\n" + okWorker,
			[]string{"hami.podInitialBackoffSeconds: Invalid value: -1"}},
		{"max backoff below initial",
			"hami: {podInitialBackoffSeconds: 5, podMaxBackoffSeconds: 2}\ntenants:\n  - name: a\n" + okWorker,
			[]string{"hami.podMaxBackoffSeconds: Invalid value: 2", "podInitialBackoffSeconds (5)"}},
		{"max backoff absurd", "hami: {podMaxBackoffSeconds: 3600}\ntenants:\n  - name: a\n" + okWorker,
			[]string{"hami.podMaxBackoffSeconds: Invalid value: 3600"}},
		{"not yaml", "tenants: [", []string{"not valid YAML: line 1"}},
		{"wrong type", "tenants: 3\n", []string{"tenants: Invalid value: 3: must be a list of tenants"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml))
			if err == nil {
				t.Fatalf("no error for:\n%s", tc.yaml)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestValidationReportsAllErrorsTogether: one pass lists every problem.
func TestValidationReportsAllErrorsTogether(t *testing.T) {
	src := "name: BAD\nhami: {nodeLockTimeout: x}\nversions: {kubernetes: v9.9.9}\ntenants:\n" +
		"  - name: Tenant_A\n    ports: {apiServer: 80}\n    workers:\n      - {name: w, gpus: [{model: Z, count: 0}]}\n" +
		"  - name: b\n    workers: []\n"
	_, err := Parse([]byte(src))
	var ve *validationError
	if !errors.As(err, &ve) {
		t.Fatalf("want *ValidationError, got %T: %v", err, err)
	}
	for _, w := range []string{"name:", "hami.nodeLockTimeout", "versions.kubernetes", "tenants[0].name", "tenants[0].ports.apiServer",
		"tenants[0].workers[0].gpus[0].model", "tenants[0].workers[0].gpus[0].count", "tenants[1].workers"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q in:\n%v", w, err)
		}
	}
	if len(ve.Errs) < 8 {
		t.Errorf("%d errors reported, want at least 8:\n%v", len(ve.Errs), err)
	}
	if strings.Count(err.Error(), "\n  - ") != len(ve.Errs) {
		t.Errorf("want one line per problem:\n%v", err)
	}
}
