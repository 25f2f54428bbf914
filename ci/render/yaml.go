package render

import (
	"bytes"
	"encoding/json"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// File is one rendered manifest: a path relative to the output directory and
// its YAML.
type File struct {
	Name string
	Data []byte
}

// YAML renders objects as one YAML stream, "---" between documents. Objects
// of k8s.io/api types lose status and empty values (see manifest); every
// other value is marshalled as is.
func YAML(objs ...any) ([]byte, error) {
	var b bytes.Buffer
	for i, o := range objs {
		if isAPIObject(o) {
			m, err := manifest(o)
			if err != nil {
				return nil, err
			}
			o = m
		}
		y, err := yaml.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("marshal %T: %w", o, err)
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}

// manifest is a Kubernetes API object as a user would write it: without
// status and without the empty values Go structs of k8s.io/api always
// serialise (creationTimestamp: null, resources: {}). Only for k8s.io/api
// types: in the lab's own structs an empty object can be meaningful
// (Kamaji's coreDNS: {} enables the addon).
func manifest(obj any) (map[string]any, error) {
	j, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("marshal %T: %w", obj, err)
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, fmt.Errorf("unmarshal %T: %w", obj, err)
	}
	delete(m, "status")
	prune(m)
	return m, nil
}

// isAPIObject reports whether o is a k8s.io/api struct the lab renders.
func isAPIObject(o any) bool {
	switch o.(type) {
	case *corev1.Namespace, *corev1.ConfigMap, *appsv1.DaemonSet,
		*admissionregistrationv1.MutatingAdmissionPolicy, *admissionregistrationv1.MutatingAdmissionPolicyBinding:
		return true
	}
	return false
}

// prune removes nulls and empty objects, recursively.
func prune(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		for k, e := range x {
			if prune(e) {
				delete(x, k)
			}
		}
		return len(x) == 0
	case []any:
		for _, e := range x {
			prune(e)
		}
	}
	return false
}
