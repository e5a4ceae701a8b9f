package agentruntime

// DefaultMaxConcurrentReconciles is how many agents the controller
// reconciles at once by default. A reconcile is I/O-bound: its CPU is about
// a millisecond, the rest is waiting on the API server (a Secret read, up to
// five server-side applies, three of them in parallel, a status patch), and
// much of that wait is not the API server working but queueing: the Role's
// and RoleBinding's escalation checks wait for the RBAC watch caches to be
// fresh, and the API server allocates Service ClusterIPs one at a time. So
// one worker leaves the operator idle; sixteen keep 1,000 agents created at
// once moving (make bench-agents: 108 s to Running with eight, 97 s with
// sixteen, on the shared two cores). Each agent is still reconciled by one
// worker at a time (the workqueue never hands out a key being processed).
// More workers only help while the API server has headroom: with 24 the
// Service applies queue for nearly two seconds each.
const DefaultMaxConcurrentReconciles = 16
