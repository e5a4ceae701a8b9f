package faults

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	crdschema "github.com/altairalabs/omnia/rules/schema"
)

func TestStreamOperations(t *testing.T) {
	const groups = 3
	created := map[string]bool{}
	invalid, updates := 0, map[string]int{}
	for k := range 200 {
		op := OpAt(k, groups)
		if op != OpAt(k, groups) {
			t.Fatalf("op %d is not deterministic", k)
		}
		switch {
		case op.Invalid && !op.Update:
			invalid++
			if created[op.Kind+"/"+op.Name] || op.Name[:8] != "invalid-" {
				t.Fatalf("op %d %s: an invalid create under a valid or reused name", k, op)
			}
			created[op.Kind+"/"+op.Name] = true
		case op.Invalid:
			invalid++
			if !created[op.Kind+"/"+op.Name] {
				t.Fatalf("op %d %s spoils an object not yet created", k, op)
			}
		case op.Update:
			if !created[op.Kind+"/"+op.Name] {
				t.Fatalf("op %d %s updates an object not yet created", k, op)
			}
			key := op.Kind + "/" + op.Name
			if op.Version != updates[key]+1 {
				t.Fatalf("op %d %s writes version %d after %d", k, op, op.Version, updates[key])
			}
			updates[key] = op.Version
		default:
			if op.Version != 0 || created[op.Kind+"/"+op.Name] {
				t.Fatalf("op %d %s creates twice or at a version", k, op)
			}
			created[op.Kind+"/"+op.Name] = true
		}
	}
	if invalid != 50 {
		t.Errorf("%d invalid operations in 200, want one in %d", invalid, InvalidEvery)
	}
	// The first groups' nine objects are created, then one valid write in
	// four creates another Provider or ToolRegistry and the others update
	// the nine round after round: of 150 valid operations, 9 + 36 creates
	// and 105 updates, 11 or 12 of each of the nine.
	total := 0
	for _, kind := range streamKinds {
		for g := range groups {
			n := updates[kind+"/"+objectName(kind, g)]
			total += n
			if n != 11 && n != 12 {
				t.Errorf("%s %d updated %d times, want 11 or 12", kind, g, n)
			}
		}
	}
	if total != 105 {
		t.Errorf("%d updates, want 105", total)
	}
	extra := 0
	for key := range created {
		if !strings.Contains(key, "invalid-") {
			extra++
		}
	}
	if extra != 45 {
		t.Errorf("%d valid creates, want 45", extra)
	}
	for k := range 200 {
		if op := OpAt(k, groups); !op.Invalid && !op.Update && op.Group >= groups && op.Kind == KindAgentRuntime {
			t.Errorf("op %d creates an AgentRuntime beyond the first groups", k)
		}
	}
}

func schemaValidator(t *testing.T) *crdschema.Validator {
	t.Helper()
	sv, err := crdschema.Default()
	if err != nil {
		t.Fatal(err)
	}
	return sv
}

func TestInvalidObjectsAreDeniedByTheRules(t *testing.T) {
	ctx := context.Background()
	sv := schemaValidator(t)
	for _, kind := range streamKinds {
		valid := validObject("ns", kind, 0, 2)
		if denies, err := denyFindings(ctx, sv, kind, valid); err != nil || len(denies) > 0 {
			t.Errorf("valid %s: %v %v", kind, denies, err)
		}
		bad := invalidObject("ns", kind, 0, invalidName(kind, 0))
		denies, err := denyFindings(ctx, sv, kind, bad)
		if err != nil || len(denies) == 0 {
			t.Errorf("invalid %s has no deny finding (%v)", kind, err)
		}
	}
}

func TestClassify(t *testing.T) {
	gr := schema.GroupResource{Group: "omnia.altairalabs.ai", Resource: "providers"}
	cases := []struct {
		err  error
		want ErrorClass
	}{
		{errors.New(`Internal error occurred: failed calling webhook "vprovider.omnia.altairalabs.ai": connect: connection refused`), ClassWebhookUnavailable},
		{apierrors.NewConflict(gr, "p", errors.New("changed")), ClassConflict},
		{fmt.Errorf(`Post "https://127.0.0.1:4444/apis": dial tcp 127.0.0.1:4444: connect: connection refused`), ClassRefused},
		{apierrors.NewServiceUnavailable("etcd"), ClassNotReady},
		{errors.New(`Post "https://127.0.0.1:4444/apis": http2: client connection force closed via ClientConn.Close`), ClassCutOff},
		{errors.New(`Put "https://127.0.0.1:4444/apis": read tcp 127.0.0.1:1->127.0.0.1:4444: read: connection reset by peer`), ClassCutOff},
		{context.DeadlineExceeded, ClassTimeout},
		{apierrors.NewTimeoutError("request did not complete", 1), ClassTimeout},
		{apierrors.NewForbidden(gr, "p", errors.New("not yet ready to handle request")), ClassNotReady},
		{apierrors.NewGenericServerResponse(404, "post", gr, "", "", 0, false), ClassNotReady},
		{apierrors.NewNotFound(gr, "p"), ClassOther},
		{errors.New(`admission webhook "vprovider.omnia.altairalabs.ai" denied the request: spec.baseURL: bad`), ClassWebhookDenied},
		{apierrors.NewBadRequest("nope"), ClassOther},
	}
	for _, c := range cases {
		if got := classify(c.err); got != c.want {
			t.Errorf("classify(%v) = %s, want %s", c.err, got, c.want)
		}
	}
	denial := errors.New(`admission webhook "vprovider.omnia.altairalabs.ai" denied the request: [provider/defaults-timeout-duration] ...`)
	if !isWebhookDenial(denial) || isWebhookDenial(errors.New(`failed calling webhook "x"`)) {
		t.Error("isWebhookDenial does not tell a denial from a failed call")
	}
}

func TestReplayKeepsEachObjectOnOneWorker(t *testing.T) {
	const groups, workers = 10, 4
	worker := map[string]int{}
	used := map[int]bool{}
	for k := range 400 {
		op := OpAt(k, groups)
		key := op.Kind + "/" + op.Name
		w := partition(op, k) % workers
		used[w] = true
		if prev, ok := worker[key]; ok && prev != w {
			t.Fatalf("op %d %s on worker %d, earlier ones on %d", k, op, w, prev)
		}
		worker[key] = w
	}
	if len(used) != workers {
		t.Errorf("%d of %d workers used", len(used), workers)
	}
}
