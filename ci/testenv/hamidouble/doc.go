// Package hamidouble is a HAMi protocol test double (not HAMi).
//
// It stands in for HAMi v2.10.0's scheduler extender and mutating webhook in
// the local test environment, because HAMi's Go module is not available to
// this project. It is written from HAMi's source at v2.10.0 (cited
// file:line or file@v2.10.0 beside each rule) and the behaviour measured
// against the real scheduler, recorded with its provenance in HAMI-FACTS.md
// beside this file; it contains no HAMi code. It is test
// infrastructure: every log line it writes says "HAMi protocol test double
// (not HAMi)", its hami_build_info says version="protocol-double", and it
// must never be presented as HAMi or as a product feature.
//
// The local test environment runs it as its own process with HAMi's command
// line, `labctl internal hami-double <HAMi's flags>` (configFromArgs, then
// listenAndServe: HAMi's routes on --http_bind over TLS, /metrics and the
// test controls of adminHandler on --metrics-bind-address, the client from
// KUBECONFIG as HAMi's), so a real HAMi scheduler binary can take its place
// unchanged; tests drive its faults through Remote, with the token the
// environment writes into the tenant's directory (AdminTokenFileEnv): the
// metrics listener is on loopback, open to every local user.
//
// # Behaviours, observed and modelled
//
// Each row: HAMi's behaviour, what was observed with the real v2.10.0
// scheduler (§N are sections of HAMI-FACTS.md), what the double does by
// default (each is switchable for breakage tests), and the test that holds
// them together.
//
//	behaviour                 observed                                   modelled (switch)                                 test
//	command line              chart args + extraArgs (§1, §5.5)          configFromArgs: pflag set with HAMi's flags,      TestConfigFromChartArgs,
//	                                                                     types, defaults; unknown flag → error naming it;  TestConfigFromArgsDefaults,
//	                                                                     unmodelled flags listed, logged at Start          TestConfigFromArgsRejects
//	device config             chart default: split 10, defaultMemory 0,  loadDeviceConfig; defaultMemory/Cores/GPUNum,    TestConfigFromChartArgs,
//	                          defaultCores 0, defaultGPUNum 1 (§5.1)      memoryFactor shape requests                       TestDeviceConfigDefaultsReachFilter
//	registration              node add + fixed 15 s ticker; annotation   same (Config.RegisterInterval; RegisterInstantly  TestFilterWaitsForTheFirstPass,
//	                          changes wait for the tick (§5.2)           reads cards live; Faults.NeverRegister)           TestAnnotationChangesWaitForTheTick,
//	                                                                                                                       TestNodeAddedBeforeItsAnnotation
//	before registration       Filter → "node unregistered", kube-        FailedNodes "node unregistered"; Filter waits     TestNodeAddedBeforeItsAnnotation,
//	                          scheduler "1 node unregistered." (§5.2)    for the first pass (HAMi's WaitForCacheSync)      TestNeverRegister
//	registration gate         allocatable nvidia.com/gpu > 0 (§4.1)      NvidiaGPUDevices.CheckHealth state machine        TestNvidiaHealth, TestAllocatableZero-
//	                                                                     (Faults.IgnoreRegistrationGate)                   Unregisters
//	handshake                 Requesting_<local time> on 5 vendor keys   written when a key holds no Requesting value      TestHandshakeAnnotations,
//	                          (§5.4, §4.8)                               (Faults.NoHandshake)                              TestHandshakeHealth
//	client throttling         QPS 5 / burst 10; waits 0.2–0.8 s (§3b,   client-go token bucket from Config.Rest with      TestClientThrottledLikeHAMi
//	                          §5.4, §5.6)                                KubeQPS/KubeBurst (Faults.NoThrottle)
//	API calls per verb        Filter: PATCH pod; Bind: GET node ×2,      Filter: PATCH pod; Bind: GET node ×3 (the source  TestAPICallsPerVerb
//	                          PATCH node, PATCH pod, POST binding (§3b)  has a third in SetNodeLock's retry), PATCH node,
//	                                                                     PATCH pod, POST binding; pod and node from caches
//	/metrics                  hami_* names, labels, zone="vGPU", bytes   same families via client_golang, registered       TestMetricsMatchTheRealScrape,
//	                          (§5.3 scrape)                              cards only, usage of the last pass                TestMetricsListOnlyRegisteredCards, TestReadinessGateReadsTheDouble,
//	                                                                     (Faults.MetricsBeforeRegistration; LegacyMetrics) TestMetricsUsageFollowsThePass,
//	                                                                                                                       TestLegacyMetrics
//	delete race               deleted pod forgotten 1–20 ms after the    off by default; Faults.ForgetDeletedAfter delays  TestDeleteRaceFault,
//	                          re-Filter; 5 of 11 stalled (§3e)           forgetting (KeepDeletedUsage: never;              TestDeleteRaceUntilFilteredFault
//	                                                                     KeepDeletedUntilFiltered: once, until a Filter)
//	Filter reasons, events    §2, §3c–§3k                                reason strings, FailedNodes, events               TestSeedScenario, TestFilterTenantB,
//	                                                                                                                       fit_test.go
//	node lock                 both contention texts, steal rules §3a/§3b LockNode/SetNodeLock/ReleaseNodeLock rules        TestBindContention, TestDecideLock
//	node policy               source only (node_policy.go, score.go):    pickNode: usage score before the pod, last of     TestPickNodeByPolicy, TestNodePolicyOfAPod,
//	                          binpack busiest node, "spread" emptiest;   the sort wins; annotation wins when present       TestNodePolicyThroughFilter
//	                          hami.io/node-scheduler-policy overrides    (Faults.InvertNodePolicy, IgnoreNodePolicyAnnotation)
//	use-gpuuuid / nouse       source only (devices.go CheckUUID)         exact, trimmed comma list, after the type check;  TestUseGPUUUID
//	                                                                     reasons joined as common.GenReason
//	webhook                   mutations of §5.1                          mutate (Faults.NoMutation)                        TestMutate
//	phantom usage             Pending pods that passed Filter count      same                                              TestPhantomUsageAndRefilter
//
// # Where it knowingly differs from HAMi
//
// Each difference makes tests more deterministic, never more permissive:
//   - Node adds delivered while the informers first sync never trigger a
//     registration pass, so nodes present at start register at the first
//     tick. HAMi's loop skips them too ("Scheduler not started yet") as long
//     as it consumes them before its caches report synced, which is the
//     usual order but a race in HAMi.
//   - The handshake is written when a key holds no "Requesting" value, as
//     device.CheckHealth (pkg/device/devices.go@v2.10.0) does; §5.4 reads
//     "on every registration pass", which the source does not do once a
//     Requesting value is present.
//   - HAMi polls its synced flag every 100 ms before Filter; the double
//     wakes at once.
//   - Namespaces labelled hami.io/webhook=ignore are excluded by the
//     webhook configuration's namespaceSelector (mutatingWebhook builds it),
//     exactly like HAMi's chart; the handler itself only checks the pod's
//     own label (the objectSelector's rule, repeated for safety).
//   - ResourceQuota checks (webhook, Filter, hami_resource_quota_* metrics)
//     are not modelled; neither are MIG, NUMA or topology scoring, PodGroup
//     lock retries (--node-lock-retry-timeout), --node-label-selector,
//     leader election and the scheduler-role pod label, or other vendors.
//   - A Filter request carrying full Node objects (nodeCacheCapable false)
//     is answered like the names-only form; HAMi's simulation path reads
//     devices from the given objects and writes nothing.
//   - An unparsable node lock counts as expired (HAMi returns the parse
//     error), so a corrupt lock cannot wedge a node.
//   - GPU policies other than spread, binpack and mutex are treated as spread.
//   - Among nodes of equal usage score the later candidate wins; HAMi scores
//     nodes in one goroutine each, so its choice among equals is not defined.
//   - FilteringSucceed lists several fitting nodes as "a:0.00,b:1.20"; the
//     measured runs had one candidate per tenant.
//   - Config.SchedulerName defaults to hami-scheduler (HAMi's flag default
//     is empty; the chart always sets it), and a zero device-config
//     defaultGPUNum becomes 1.
//   - A pre-built Config.Client (unit tests) is not throttled.
//
// Faults breaks one rule at a time on purpose, so that each conformance
// case, and each readiness gate, can be shown to fail against a double that
// gets that rule wrong.
package hamidouble
