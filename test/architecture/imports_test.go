// Package architecture checks the rooms of ARCHITECTURE.md: which folder may
// import which. A rule that leaks a client or a clock into rules/ would make
// "the same answer everywhere" untestable, so the boundary is a test.
package architecture

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/altairalabs/omnia"

// room says which packages a folder's (non-test) code may depend on,
// directly or not.
type room struct {
	pkg string
	// forbidden import path prefixes, anywhere in the dependency closure.
	forbidden []string
	// forbiddenDirect import paths the room's own code may not import (a
	// library it uses may).
	forbiddenDirect []string
	// allowedOwn lists the project packages it may import (prefixes).
	allowedOwn []string
}

var rooms = []room{
	{
		pkg:        "api/v1alpha1",
		forbidden:  []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go", "k8s.io/apiextensions-apiserver"},
		allowedOwn: nil,
	},
	{
		pkg:             "rules",
		forbidden:       []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go/rest", "k8s.io/client-go/kubernetes"},
		forbiddenDirect: []string{"net/http", "os", "os/exec", "log", "log/slog"},
		allowedOwn:      []string{"api/", "config/crd", "licensing", "rules/schema"},
	},
	{
		// The offline CRD validation engine follows the API server, not the
		// catalog: rules imports it, never the other way.
		pkg:             "rules/schema",
		forbidden:       []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go/rest", "k8s.io/client-go/kubernetes"},
		forbiddenDirect: []string{"net/http", "os", "os/exec", "log", "log/slog"},
		allowedOwn:      []string{"api/", "config/crd"},
	},
	{
		pkg:        "conditions",
		forbidden:  []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go"},
		allowedOwn: nil,
	},
	{
		// An agent's children, built in memory from the AgentRuntime and
		// what the controller resolved: no client, no manager, no network
		// or files, so the same inputs give the same objects in a test, the
		// operator and a benchmark.
		pkg:       "reconcile/agentruntime/workload",
		forbidden: []string{"k8s.io/client-go/rest", "k8s.io/client-go/kubernetes"},
		forbiddenDirect: []string{
			"sigs.k8s.io/controller-runtime", "sigs.k8s.io/controller-runtime/pkg/client",
			"sigs.k8s.io/controller-runtime/pkg/manager", "net/http", "os",
		},
		allowedOwn: []string{"api/", "config/crd", "rules", "licensing"},
	},
	{
		// The prober is generic: it knows no kind, rule or condition.
		pkg:        "reconcile/prober",
		allowedOwn: nil,
	},
	{
		// The licence format and its check: no project package, no client
		// (rules import it; the Secret watcher is licensing/reload).
		pkg:        "licensing",
		forbidden:  []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go"},
		allowedOwn: nil,
	},
	{
		pkg:        "licensing/reload",
		allowedOwn: []string{"licensing"},
	},
	{
		// The Arena work queue protocol: Redis only, no Kubernetes, no kind.
		pkg:        "arena/queue",
		forbidden:  []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go", "k8s.io/apimachinery"},
		allowedOwn: nil,
	},
	{
		// Per-namespace Redis credentials: Redis only, no Kubernetes.
		pkg:        "redisacl",
		forbidden:  []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go", "k8s.io/apimachinery"},
		allowedOwn: nil,
	},
	{
		// The deploy intent's wire types, decoder and validation: pure,
		// so omniactl's deploy client and the operator share them.
		pkg:        "deploy/intent",
		forbidden:  []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go/rest", "k8s.io/client-go/kubernetes"},
		allowedOwn: []string{"api/", "config/crd", "rules", "licensing", "deploy/intent"},
	},
	{
		// The tiered merge is a pure function of two AgentRuntimes.
		pkg:        "deploy/merge",
		forbidden:  []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go/rest", "k8s.io/client-go/kubernetes"},
		allowedOwn: []string{"api/", "config/crd", "rules", "licensing", "deploy/intent"},
	},
	{
		// The plan reads the cache through a client.Reader; it decides
		// with the catalog (ARCHITECTURE.md: deploy imports rules and api).
		pkg:        "deploy/plan",
		allowedOwn: []string{"api/", "config/crd", "rules", "licensing", "deploy/intent"},
	},
	{
		// The intent's objects, built without a client.
		pkg:        "deploy/translate",
		forbidden:  []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go/rest", "k8s.io/client-go/kubernetes"},
		allowedOwn: []string{"api/", "config/crd", "rules", "licensing", "deploy/intent", "deploy/merge"},
	},
	{
		pkg:        "deploy/apply",
		allowedOwn: []string{"api/", "config/crd", "rules", "licensing", "deploy/intent", "deploy/merge", "deploy/translate"},
	},
	{
		// The HTTP guard knows tokens and routes, not how a route is
		// answered (cmd/omnia-operator wires the Deployer and Planner).
		pkg:        "deploy/server",
		allowedOwn: []string{"api/", "config/crd", "rules", "licensing", "deploy/intent", "deploy/auth", "deploy/workspace"},
	},
	{
		// A workspace's namespace, read from the Workspace (never from a
		// token): what every deploy-API and catalog route acts in.
		pkg:        "deploy/workspace",
		allowedOwn: []string{"api/"},
	},
	{
		pkg:        "deploy/auth",
		allowedOwn: nil,
	},
	{
		// The workspace catalog: pure index and ranking over objects, read
		// from the cache through a client.Reader, served on the deploy
		// API's listener with its token verifier.
		pkg:        "deploy/catalog",
		allowedOwn: []string{"api/", "deploy/auth", "deploy/workspace"},
	},
	{
		pkg:        "policies",
		forbidden:  []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go/rest", "k8s.io/client-go/kubernetes"},
		allowedOwn: []string{"api/", "config/crd", "rules", "licensing"},
	},
	{
		// Report building is pure: the operator's audit and omniactl audit
		// --report write what it builds.
		pkg:        "policies/reports",
		forbidden:  []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go"},
		allowedOwn: []string{"api/", "config/crd", "rules", "licensing"},
	},
	{
		// The CLI audits offline; its deploy client shares the wire types.
		pkg:        "cmd/omniactl",
		allowedOwn: []string{"api/", "config/crd", "rules", "policies", "licensing", "deploy/intent", "cmd/omniactl/"},
	},
	{
		pkg:        "admission",
		allowedOwn: []string{"api/", "config/crd", "rules", "policies", "licensing"},
	},
}

type listed struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func list(t *testing.T, pkg string) listed {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "./"+pkg).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pkg, err)
	}
	var l listed
	if err := json.Unmarshal(out, &l); err != nil {
		t.Fatal(err)
	}
	return l
}

func TestRooms(t *testing.T) {
	for _, r := range rooms {
		t.Run(r.pkg, func(t *testing.T) {
			l := list(t, "../../"+r.pkg)
			for _, d := range l.Imports {
				for _, f := range r.forbiddenDirect {
					if d == f {
						t.Errorf("%s imports %s directly: the room is pure (no network, files, processes or logging)", r.pkg, d)
					}
				}
			}
			for _, d := range l.Deps {
				for _, f := range r.forbidden {
					if strings.HasPrefix(d, f) {
						t.Errorf("%s depends on %s, which its room forbids", r.pkg, d)
					}
				}
				own, ok := strings.CutPrefix(d, module+"/")
				if !ok {
					continue
				}
				allowed := false
				for _, a := range r.allowedOwn {
					if strings.HasPrefix(own, a) {
						allowed = true
					}
				}
				if !allowed {
					t.Errorf("%s imports %s, outside its room (may import %v)", r.pkg, own, r.allowedOwn)
				}
			}
		})
	}
}
