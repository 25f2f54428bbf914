package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
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

// fieldManager names the lab in the managedFields of every object it
// applies, so a re-run of a stage takes back only the fields it set before
// and leaves what controllers added (labels, annotations, finalizers) alone.
const fieldManager = "gpu-lab"

// Applier applies objects with server-side apply through the dynamic
// client, finding each kind's resource through discovery (a CRD's plural is
// whatever its CRD says, not a guess from the kind).
type Applier struct {
	dyn    dynamic.Interface
	mapper meta.ResettableRESTMapper
}

// NewApplier caches discovery in memory for the Applier's lifetime; a kind
// it does not know makes it ask the server again once (a CRD installed
// since, as Kamaji's chart installs TenantControlPlane).
func NewApplier(dyn dynamic.Interface, disc discovery.DiscoveryInterface) *Applier {
	return &Applier{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))}
}

// Resource is the resource serving the kind, from discovery.
func (a *Applier) Resource(gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	m, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		// The deferred mapper re-reads discovery by itself only until its
		// cache is first filled (client-go restmapper/discovery.go
		// DeferredDiscoveryRESTMapper.RESTMapping checks Fresh()).
		a.mapper.Reset()
		m, err = a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, fmt.Errorf("find the API resource of %s: %w (is the CRD that serves it installed?)", gvk, err)
	}
	return m, nil
}

// Apply sends the object as a server-side apply of FieldManager. Force
// takes over fields another manager set: every object applied here is the
// lab's own, and the lab's rendering is what it should say.
func (a *Applier) Apply(ctx context.Context, obj any) (*unstructured.Unstructured, error) {
	u, err := ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	m, err := a.Resource(u.GroupVersionKind())
	if err != nil {
		return nil, fmt.Errorf("apply %s: %w", ObjectName(u), err)
	}
	var ri dynamic.ResourceInterface = a.dyn.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		if u.GetNamespace() == "" {
			return nil, fmt.Errorf("apply %s: %s is namespaced but the object names no namespace", ObjectName(u), u.GetKind())
		}
		ri = a.dyn.Resource(m.Resource).Namespace(u.GetNamespace())
	}
	// A typed object encodes an unset creationTimestamp as null: not a
	// field the lab means to own.
	if ts, found, _ := unstructured.NestedFieldNoCopy(u.Object, "metadata", "creationTimestamp"); found && ts == nil {
		u = u.DeepCopy()
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	}
	out, err := ri.Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
	if err != nil {
		return nil, fmt.Errorf("apply %s: %w", ObjectName(u), err)
	}
	return out, nil
}

// ApplyAll applies objects in order.
func (a *Applier) ApplyAll(ctx context.Context, objs ...any) error {
	for _, o := range objs {
		if _, err := a.Apply(ctx, o); err != nil {
			return err
		}
	}
	return nil
}
