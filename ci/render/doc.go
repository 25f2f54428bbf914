// Package render is the one place gpu-lab produces Kubernetes and tool
// configuration: the kind management cluster config, one Kamaji
// TenantControlPlane per tenant, each tenant's kube-proxy, HAMi helm values,
// the fake-GPU registration of each worker, and the kubeadm
// JoinConfiguration each worker joins with.
//
// Every function is pure: a *lab.Lab (already validated) and Options in,
// typed objects out; the JoinConfiguration takes a JoinSpec instead, since
// its token, CA hash and node address exist only when the worker joins.
// The YAML forms come from the same typed values through sigs.k8s.io/yaml,
// so the stages that apply objects with client-go and the files
// `labctl plan -o` writes never disagree. Static manifests live in the
// top-level manifests package.
package render
