// Package hamidouble is a HAMi protocol test double (not HAMi).
//
// It stands in for HAMi v2.10's scheduler extender and mutating webhook in
// the local test environment, because HAMi's Go module is not available to
// this project. It is written from the protocol description in
// shared/research/hami.md (§1.2 webhook, §1.3 Filter, §1.4 Bind, §1.5
// registration, §2 annotations, §5 node lock) and the strings measured
// against the real scheduler in shared/research/hami-observed.md; it contains
// no HAMi code. It is test infrastructure: every log line it writes says
// "HAMi protocol test double (not HAMi)", and it must never be presented as
// HAMi or as a product feature.
//
// What it reproduces: the webhook's resource defaults and scheduler name;
// Filter's request parsing, per-card check order and reason strings, the
// FailedNodes value "<failing>/<total> <Reason>", spread/binpack card
// choice, the pod annotations and label written in Filter, phantom usage of
// pods that passed Filter; Bind's node lock, bind-phase, Binding and events.
//
// Where it knowingly differs from HAMi (each difference makes tests more
// deterministic, never more permissive):
//   - Nodes are read live from the node informer, not from a 15-second
//     registration loop; the allocatable nvidia.com/gpu > 0 gate applies.
//   - A deleted pod's usage is forgotten as soon as the pod informer sees the
//     delete. Real HAMi races kube-scheduler here and sometimes leaves a
//     Pending pod unschedulable for ~5 minutes (hami-observed.md §3e); suites
//     must therefore test released capacity with a fresh pod.
//   - No client-side API throttling (HAMi runs at QPS 5 / burst 10).
//   - Namespaces labelled hami.io/webhook=ignore are excluded by the
//     webhook configuration's namespaceSelector (MutatingWebhook builds it),
//     exactly like HAMi's chart; the handler itself only checks the pod's
//     own label (the objectSelector's rule, repeated for safety).
//   - ResourceQuota checks (webhook and Filter) are not modelled.
//   - GPU policies other than spread, binpack and mutex are treated as spread.
//   - A candidate node the double does not know, or one without registered
//     cards, fails as NodeInsufficientDevice (it has fewer cards than asked).
//   - When several card-level reasons fail one node, FailedNodes joins them
//     as "1/2 CardCordoned, 1/2 CardInsufficientMemory" (sorted); the real
//     runs measured only ever showed one reason, so the joiner is a guess.
//   - FilteringSucceed lists several fitting nodes as "a:0.00,b:1.20"; the
//     measured runs had one candidate per tenant.
//
// Faults breaks one rule at a time on purpose, so that each conformance
// case can be shown to fail against a double that gets that rule wrong.
package hamidouble
