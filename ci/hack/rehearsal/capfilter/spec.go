package capfilter

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// FilterSpec deletes the capabilities named in drop from every set of
// process.capabilities of an OCI bundle's config.json (runtime-spec v1.0.2
// config.md: "process" → "capabilities" → bounding, effective, inheritable,
// permitted, ambient). It returns the document to write and the names it
// removed; when nothing is removed it returns data unchanged, so a spec
// that asks for nothing missing is passed on byte for byte. Every other
// field is kept as it was (only the changed objects are re-encoded).
func FilterSpec(data []byte, drop []string) ([]byte, []string, error) {
	var spec map[string]json.RawMessage
	if err := json.Unmarshal(data, &spec); err != nil {
		return nil, nil, fmt.Errorf("the bundle's config.json is not a JSON object: %w", err)
	}
	proc, ok := spec["process"]
	if !ok || string(proc) == "null" {
		return data, nil, nil
	}
	newProc, removed, err := filterProcess(proc, drop)
	if err != nil {
		return nil, nil, fmt.Errorf("config.json's process: %w", err)
	}
	if len(removed) == 0 {
		return data, nil, nil
	}
	spec["process"] = newProc
	out, err := json.Marshal(spec)
	return out, removed, err
}

// FilterProcess is FilterSpec for the process file of `runc exec --process
// FILE` (runc 1.1.5 `runc exec --help`: "path to the process.json"), which
// holds a runtime-spec "process" object on its own.
func FilterProcess(data []byte, drop []string) ([]byte, []string, error) {
	out, removed, err := filterProcess(data, drop)
	if err != nil {
		return nil, nil, fmt.Errorf("the exec process file: %w", err)
	}
	if len(removed) == 0 {
		return data, nil, nil
	}
	return out, removed, nil
}

func filterProcess(data json.RawMessage, drop []string) (json.RawMessage, []string, error) {
	var proc map[string]json.RawMessage
	if err := json.Unmarshal(data, &proc); err != nil {
		return nil, nil, fmt.Errorf("not a JSON object: %w", err)
	}
	raw, ok := proc["capabilities"]
	if !ok || string(raw) == "null" {
		return data, nil, nil
	}
	var sets map[string]json.RawMessage
	if err := json.Unmarshal(raw, &sets); err != nil {
		return nil, nil, fmt.Errorf("capabilities is not a JSON object: %w", err)
	}
	dropSet := map[string]bool{}
	for _, d := range drop {
		dropSet[d] = true
	}
	removedSet, err := filterSets(sets, dropSet)
	if err != nil {
		return nil, nil, err
	}
	if len(removedSet) == 0 {
		return data, nil, nil
	}
	enc, err := json.Marshal(sets)
	if err != nil {
		return nil, nil, err
	}
	proc["capabilities"] = enc
	out, err := json.Marshal(proc)
	if err != nil {
		return nil, nil, err
	}
	return out, slices.Sorted(maps.Keys(removedSet)), nil
}

// filterSets deletes the capabilities of dropSet from every set of sets
// (re-encoding only the sets that change) and returns those it removed.
func filterSets(sets map[string]json.RawMessage, dropSet map[string]bool) (map[string]bool, error) {
	removedSet := map[string]bool{}
	for name, rawSet := range sets {
		if string(rawSet) == "null" {
			continue
		}
		var caps []string
		if err := json.Unmarshal(rawSet, &caps); err != nil {
			return nil, fmt.Errorf("capabilities.%s is not a list of names: %w", name, err)
		}
		kept := make([]string, 0, len(caps))
		for _, c := range caps {
			if dropSet[c] {
				removedSet[c] = true
				continue
			}
			kept = append(kept, c)
		}
		if len(kept) == len(caps) {
			continue
		}
		enc, err := json.Marshal(kept)
		if err != nil {
			return nil, err
		}
		sets[name] = enc
	}
	return removedSet, nil
}
