// Package kubetest gives the dynamic fake client what a real API server
// has and the fake lacks: server-side apply (client-go's object tracker
// only patches objects that already exist) and discovery of the resources
// the lab applies.
package kubetest

import (
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
)

// Applied is one apply request as the server received it.
type Applied struct {
	Namespace, Name string
	FieldManager    string
	Force           bool
	// Object is the request body: the fields the manager claims.
	Object *unstructured.Unstructured
}

// Applies records the apply requests a fake client received.
type Applies struct {
	mu   sync.Mutex
	list []Applied
}

// List returns the requests so far, in order.
func (a *Applies) List() []Applied {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Applied(nil), a.list...)
}

// ReactToApply makes the fake answer apply patches: the object is created
// if absent, else the applied fields are merged over the stored object
// (maps merged key by key, anything else replaced). That is server-side
// apply for one manager that owns every field it sends; fields it stopped
// sending are not removed here, as a real server would.
func ReactToApply(f *dynamicfake.FakeDynamicClient) *Applies {
	rec := &Applies{}
	f.PrependReactor("patch", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
		p, ok := action.(clienttesting.PatchActionImpl)
		if !ok || p.GetPatchType() != types.ApplyPatchType {
			return false, nil, nil
		}
		applied := &unstructured.Unstructured{}
		if err := applied.UnmarshalJSON(p.GetPatch()); err != nil {
			return true, nil, apierrors.NewBadRequest(err.Error())
		}
		force := p.PatchOptions.Force != nil && *p.PatchOptions.Force
		rec.mu.Lock()
		rec.list = append(rec.list, Applied{Namespace: p.GetNamespace(), Name: p.GetName(),
			FieldManager: p.PatchOptions.FieldManager, Force: force, Object: applied.DeepCopy()})
		rec.mu.Unlock()

		gvr, ns := p.GetResource(), p.GetNamespace()
		live, err := f.Tracker().Get(gvr, ns, p.GetName())
		if apierrors.IsNotFound(err) {
			if err := f.Tracker().Create(gvr, applied, ns); err != nil {
				return true, nil, err
			}
			out, err := f.Tracker().Get(gvr, ns, p.GetName())
			return true, out, err
		}
		if err != nil {
			return true, nil, err
		}
		cur, err := runtime.DefaultUnstructuredConverter.ToUnstructured(live)
		if err != nil {
			return true, nil, err
		}
		merged := &unstructured.Unstructured{Object: cur}
		merge(merged.Object, applied.Object)
		if err := f.Tracker().Update(gvr, merged, ns); err != nil {
			return true, nil, err
		}
		out, err := f.Tracker().Get(gvr, ns, p.GetName())
		return true, out, err
	})
	return rec
}

func merge(dst, src map[string]any) {
	for k, v := range src {
		sv, sIsMap := v.(map[string]any)
		dv, dIsMap := dst[k].(map[string]any)
		if sIsMap && dIsMap {
			merge(dv, sv)
			continue
		}
		dst[k] = v
	}
}
