package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateOK(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lab.yaml")
	src := "tenants:\n  - name: a\n    workers:\n      - {name: w, gpus: [{model: H200, count: 2}]}\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, newValidateCommand, "-f", p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "ok: lab gpu-lab: 1 tenant, 1 worker, 2 GPUs: 2× H200"; !strings.HasPrefix(out, want) {
		t.Errorf("output %q, want prefix %q", out, want)
	}
}

// TestValidatePositionalFile: `labctl validate lab.yaml` checks the same
// file as `-f lab.yaml`, with the same output and exit code.
func TestValidatePositionalFile(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.yaml"), filepath.Join(dir, "bad.yaml")
	for p, src := range map[string]string{
		good: "tenants:\n  - name: a\n    workers:\n      - {name: w, gpus: [{model: T4, count: 3}]}\n",
		bad:  "tenants:\n  - name: a\n    workrs: []\n",
	} {
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{good, bad} {
		flagOut, flagErr, flagRunErr := run(t, newValidateCommand, "-f", p)
		argOut, argErr, argRunErr := run(t, newValidateCommand, p)
		if argOut != flagOut || argErr != flagErr || fmt.Sprint(argRunErr) != fmt.Sprint(flagRunErr) {
			t.Errorf("%s: positional (%q, %q, %v) differs from -f (%q, %q, %v)",
				filepath.Base(p), argOut, argErr, argRunErr, flagOut, flagErr, flagRunErr)
		}
	}
	if out, _, err := run(t, newValidateCommand, good); err != nil || !strings.HasPrefix(out, "ok: lab gpu-lab: 1 tenant, 1 worker, 3 GPUs") {
		t.Errorf("positional good file: %q, %v", out, err)
	}
	if _, stderr, _ := run(t, newValidateCommand, bad); !strings.Contains(stderr,
		`tenants[0].workrs: unknown field "workrs": did you mean "workers"?`) {
		t.Errorf("positional bad file: stderr %q", stderr)
	}
	if _, _, err := run(t, newValidateCommand, "-f", good, bad); err == nil || !strings.Contains(err.Error(), "two lab files") {
		t.Errorf("-f and a different argument: %v, want an error naming both", err)
	}
	if _, _, err := run(t, newValidateCommand, good, bad); err == nil {
		t.Error("two arguments accepted")
	}
}

func TestValidateListsEveryError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.yaml")
	src := "tenants:\n  - name: Tenant_B\n    ports: {apiServer: 80}\n    workers:\n      - {name: w, gpus: [{model: A100, count: 0}]}\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := run(t, newValidateCommand, "-f", p)
	var ee exitError
	if !errors.As(err, &ee) || ee.code == 0 {
		t.Fatalf("want a non-zero exitError, got %v", err)
	}
	if out != "" {
		t.Errorf("stdout not empty: %q", out)
	}
	for _, want := range []string{
		"labctl: lab file " + p + ": 4 problems in the lab:",
		`tenants[0].name: Invalid value: "Tenant_B"`,
		"tenants[0].ports.apiServer: Invalid value: 80",
		`tenants[0].workers[0].gpus[0].model: Unsupported value: "A100"`,
		"tenants[0].workers[0].gpus[0].count: Invalid value: 0",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestHelpListsFlagsWithDefaults(t *testing.T) {
	out, _, err := run(t, newPlanCommand, "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Print the resolved lab", "-f, --file", "-o, --output", `(default "172.18.0.2")`} {
		if !strings.Contains(out, want) {
			t.Errorf("plan --help lacks %q:\n%s", want, out)
		}
	}
	out, _, err = run(t, newValidateCommand, "--help")
	if err != nil || !strings.Contains(out, "Check a lab file") || !strings.Contains(out, "-f, --file") {
		t.Errorf("validate --help: %v\n%s", err, out)
	}
}

// TestValidateSummaryIsPluralised: one of a thing is singular.
func TestValidateSummaryIsPluralised(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lab.yaml")
	src := "tenants:\n  - name: a\n    workers:\n      - {name: w, gpus: [{model: L4, count: 1}]}\n" +
		"  - name: b\n    workers:\n      - {name: w, gpus: [{model: T4, count: 1}]}\n      - {name: x, gpus: [{model: T4, count: 1}]}\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, newValidateCommand, p)
	if want := "ok: lab gpu-lab: 2 tenants, 3 workers, 3 GPUs: 1× L4, 2× T4; Kubernetes v1.36.4\n"; err != nil || out != want {
		t.Errorf("output %q, %v; want %q", out, err, want)
	}
}

// TestValidateMissingFile: the error says labctl, which file, and what to do.
func TestValidateMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope.yaml")
	out, stderr, err := run(t, newValidateCommand, p)
	want := "labctl: lab file " + p + " does not exist: check the path, " +
		"or leave the file out to use the seed lab (`labctl plan` prints it): open " + p + ": no such file or directory\n"
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 || out != "" || stderr != want {
		t.Errorf("validate %s: %v, stdout %q, stderr %q; want stderr %q", p, err, out, stderr, want)
	}
}

// TestValidateJSONFile: a .json file is reported in JSON's terms.
func TestValidateJSONFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lab.json")
	if err := os.WriteFile(p, []byte(`{"tenants": [],}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, _ := run(t, newValidateCommand, p)
	if want := "labctl: lab file " + p + ": the file is not valid JSON: line 1, " +
		"column 16: invalid character '}' looking for beginning of object key string\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
}
