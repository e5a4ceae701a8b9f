// Package contract is a test harness that checks what an agent's Pod gives
// the process in each container, not only how the Pod object looks. No
// container runs on the local cluster's kwok Node, so a Pod can be
// well-formed and still hand its process nothing it can use.
//
// Resolve takes a real Pod the local cluster created (bound to the kwok
// Node) and resolves one of its containers as a kubelet would before
// starting it. It builds the environment from env and envFrom: literals
// with $(VAR) expansion, Secret and ConfigMap keys read from the API
// server with their optional flags, and downward API fields. It writes
// every volume the container mounts under a root directory (mountPath /x
// goes to root/x): configMap, secret, downwardAPI, emptyDir, and projected
// volumes made of those sources plus serviceAccountToken. A
// serviceAccountToken is a real TokenRequest for the Pod's ServiceAccount,
// with the projection's audience and lifetime, bound to the Pod.
// Run then starts the probe (test/contract/probe) as a real process with
// only that environment, plus PATH, CONTRACT_ROOT and the API server's
// address and CA. The probe reads what the operator promises that
// container's role (the env names of reconcile/agentruntime/workload). For
// the facade, it calls the real API server with nothing but the token
// mounted in the Pod.
//
// What the harness proves: each env var and file the container would get
// exists with the value the API server holds now. The containers get the
// files the operator's contract names (tools file, credentials, headers,
// audience-bound tool tokens, the pack), and never a credential in the
// tools file or a Kubernetes token in the runtime. The facade's real token
// is accepted by the API server, and RBAC allows exactly what the facade
// needs. Resolve also reports what the kubelet would refuse to start: a
// missing Secret, ConfigMap or key that is not optional, a mount of a
// missing volume, a field the harness cannot resolve.
//
// What it does not prove. Nothing is scheduled, networked, restarted or
// isolated: the probe runs on the host as the test's user, so file modes
// (0444 files and 0555 directories for a readOnly mount) are written but
// not enforced against root, and nothing checks securityContext, images,
// ports, probes or resources. resourceFieldRef, subPathExpr, hostPath, PVC,
// CSI and other volume kinds are not supported: a mounted one is an error,
// and an unmounted one is listed in Resolved.Unsupported. Files are written
// once per Resolve. A rotation (a Secret changed or removed, a token
// renewed) is seen only by resolving again into a fresh root, the way the
// kubelet's periodic refresh would see it. The atomic ..data symlink swaps
// the kubelet makes are not reproduced.
package contract
