package lab

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the decoder and validator, read as
// YAML and as JSON: neither must panic, and a lab either accepts must be
// valid and fully defaulted.
// Run longer with: go test ./ci/lab -run '^$' -fuzz FuzzParse -fuzztime 30s
func FuzzParse(f *testing.F) {
	f.Add(defaultYAML())
	f.Add([]byte(""))
	f.Add([]byte("tenants: [{name: a, ports: {apiServer: 31132}, workers: [{name: w, gpus: [{model: custom, " +
		"count: 2, memoryMB: 1, type: NVIDIA}]}]}]"))
	f.Add([]byte(`{"tenants":[{"name":"a","workers":[{"name":"w","gpus":[{"model":"L4","count":1}]}]}]}`))
	f.Add([]byte("hami: {splitCount: -1, nodeLockTimeout: 1h}\nversions: {kubernetes: v1.35.8}\n"))
	f.Add([]byte("tenants:\n- &a {name: x}\n- *a\n"))
	f.Add([]byte(`{"name": "a", "name": "b", "tenants": [{"name": "control", "workers": [{"name": "plane"}],}]}`))
	f.Add([]byte("versions: {kindNodeImage: x@y, kamajiImage: \"x,a=b\", hamiChart: 0.0.0+latest}\n" +
		"hami: {splitCount: ten, nodeLockTimeout: 5}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParsed(t, data, formatYAML)
		checkParsed(t, data, formatJSON)
	})
}

// checkParsed: no panic, no list without problems, no tree the shape check
// passed that then fails to decode, and a lab accepted only when valid.
func checkParsed(t *testing.T, data []byte, f format) {
	l, err := parseFormat(data, f)
	if err != nil {
		if strings.Contains(err.Error(), "does not decode as a lab") {
			t.Fatalf("%s: the shape check let through what the decoder refuses: %v for %q", f, err, data)
		}
		var ve *validationError
		if errors.As(err, &ve) && len(ve.Errs) == 0 {
			t.Fatalf("%s: ValidationError without errors for %q", f, data)
		}
		return
	}
	if errs := l.validate(); len(errs) > 0 {
		t.Fatalf("accepted lab does not validate: %v", errs)
	}
	if l.HAMi.SplitCount == 0 || l.Versions.WorkerImage() == "" {
		t.Fatalf("accepted lab not defaulted: %+v", l)
	}
	for _, tn := range l.Tenants {
		for _, w := range tn.Workers {
			for _, c := range w.Cards() {
				if c.MemoryMB <= 0 || c.Type == "" {
					t.Fatalf("accepted card without memory or type: %+v", c)
				}
			}
		}
	}
}
