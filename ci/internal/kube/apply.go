package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
)

// ToUnstructured converts a typed object (client-go types or render's own)
// through JSON.
func ToUnstructured(obj any) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", obj, err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(b); err != nil {
		return nil, fmt.Errorf("decode %T as an object: %w", obj, err)
	}
	return u, nil
}

// DecodeManifests splits a YAML stream into objects, skipping empty documents.
func DecodeManifests(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for i := 0; ; i++ {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("manifest document %d: %w", i, err)
		}
		if len(m) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetKind() == "" || u.GetAPIVersion() == "" {
			return nil, fmt.Errorf("manifest document %d: no kind/apiVersion", i)
		}
		out = append(out, u)
	}
}

// ObjectName is "Kind namespace/name" for messages.
func ObjectName(u *unstructured.Unstructured) string {
	if ns := u.GetNamespace(); ns != "" {
		return u.GetKind() + " " + ns + "/" + u.GetName()
	}
	return u.GetKind() + " " + u.GetName()
}

// Apply creates the object or updates it in place (create-or-update keeps
// stages idempotent without server-side apply, which the fake clients used
// in tests do not implement).
func Apply(ctx context.Context, dyn dynamic.Interface, obj any) (*unstructured.Unstructured, error) {
	u, err := ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	gvk := u.GroupVersionKind()
	gvr, _ := meta.UnsafeGuessKindToResource(gvk)
	var ri dynamic.ResourceInterface = dyn.Resource(gvr)
	if ns := u.GetNamespace(); ns != "" {
		ri = dyn.Resource(gvr).Namespace(ns)
	}
	cur, err := ri.Get(ctx, u.GetName(), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		out, err := ri.Create(ctx, u, metav1.CreateOptions{FieldManager: "labctl"})
		if err != nil {
			return nil, fmt.Errorf("create %s: %w", ObjectName(u), err)
		}
		return out, nil
	case err != nil:
		return nil, fmt.Errorf("get %s: %w", ObjectName(u), err)
	}
	u.SetResourceVersion(cur.GetResourceVersion())
	out, err := ri.Update(ctx, u, metav1.UpdateOptions{FieldManager: "labctl"})
	if err != nil {
		return nil, fmt.Errorf("update %s: %w", ObjectName(u), err)
	}
	return out, nil
}

// ApplyAll applies objects in order.
func ApplyAll(ctx context.Context, dyn dynamic.Interface, objs ...any) error {
	for _, o := range objs {
		if _, err := Apply(ctx, dyn, o); err != nil {
			return err
		}
	}
	return nil
}
