// Package pullpolicy owns the management cluster's side of an image
// bundle's pull policy: the MutatingAdmissionPolicy and its binding
// (render.BundlePullPolicyObjects) that turn the imagePullPolicy Always
// Kamaji hard-codes on kube-apiserver and konnectivity-server into
// IfNotPresent (render/bundlepullpolicy.go says why this and not something
// else), whether they are installed, their apply, and the dry-run probe
// that proves the API server applies them.
//
// It knows nothing of stages; the cluster is client-go's
// kubernetes.Interface.
package pullpolicy
