package arenaproject

import (
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/rules"
)

func TestComputeStatus(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	hosted := &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Generation: 3}}
	external := hosted.DeepCopy()
	external.Spec.Git = &v1alpha1.ArenaProjectGitSource{URL: "https://git.example.invalid/x.git"}
	stale := hosted.DeepCopy()
	stale.Status = v1alpha1.ArenaProjectStatus{DefaultBranch: "main", HeadCommit: "abc"}
	srcErr := func(reason string) error { return &source.Error{Reason: reason, Message: "m"} }
	ok := &observation{opened: source.Opened{Repository: "hosted", DefaultBranch: "trunk", Commit: "c0ffee"}}
	deny := []rules.Finding{{RuleID: "arenaproject/x", Severity: rules.SeverityDeny, Reason: "BadThing", Message: "no"}}
	warn := []rules.Finding{{RuleID: "arenaproject/y", Severity: rules.SeverityWarn, Message: "hm"}}

	cases := []struct {
		name       string
		p          *v1alpha1.ArenaProject
		findings   []rules.Finding
		obs        *observation
		phase      v1alpha1.ArenaProjectPhase
		status     metav1.ConditionStatus
		reason     string
		branch     string
		repository string
	}{
		{name: "resolved", p: hosted, obs: ok, phase: "Ready", status: "True", reason: v1alpha1.ArenaProjectReasonResolved, branch: "trunk", repository: "hosted"},
		{name: "warn findings are advisory", p: hosted, findings: warn, obs: ok, phase: "Ready", status: "True", reason: v1alpha1.ArenaProjectReasonResolved, branch: "trunk", repository: "hosted"},
		{name: "deny finding", p: hosted, findings: deny, phase: "Failed", status: "False", reason: "BadThing", repository: "hosted"},
		{name: "hosted repository missing waits", p: hosted, obs: &observation{err: srcErr(v1alpha1.ArenaProjectReasonRepositoryNotFound)}, phase: "Pending", status: "False", reason: v1alpha1.ArenaProjectReasonRepositoryNotFound, repository: "hosted"},
		{name: "hosted repository empty waits", p: hosted, obs: &observation{err: srcErr(v1alpha1.ArenaProjectReasonEmptyRepository)}, phase: "Pending", status: "False", reason: v1alpha1.ArenaProjectReasonEmptyRepository, repository: "hosted"},
		{name: "no content root fails", p: hosted, obs: &observation{err: srcErr(v1alpha1.ArenaProjectReasonContentRootNotSet)}, phase: "Failed", status: "False", reason: v1alpha1.ArenaProjectReasonContentRootNotSet, repository: "hosted"},
		{name: "external not found fails", p: external, obs: &observation{err: srcErr(v1alpha1.ArenaProjectReasonRepositoryNotFound)}, phase: "Failed", status: "False", reason: v1alpha1.ArenaProjectReasonRepositoryNotFound, repository: "https://git.example.invalid/x.git"},
		{name: "external insecure fails", p: external, obs: &observation{err: srcErr(v1alpha1.ArenaProjectReasonInsecureURL)}, phase: "Failed", status: "False", reason: v1alpha1.ArenaProjectReasonInsecureURL, repository: "https://git.example.invalid/x.git"},
		{name: "a plain error is FetchFailed", p: external, obs: &observation{err: errors.New("boom")}, phase: "Failed", status: "False", reason: v1alpha1.ArenaProjectReasonFetchFailed, repository: "https://git.example.invalid/x.git"},
		{name: "a failure keeps the last known branch", p: stale, obs: &observation{err: srcErr(v1alpha1.ArenaProjectReasonRepositoryNotFound)}, phase: "Pending", status: "False", reason: v1alpha1.ArenaProjectReasonRepositoryNotFound, branch: "main", repository: "hosted"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := computeStatus(tc.p, tc.findings, tc.obs, now)
			if st.Phase != tc.phase || st.DefaultBranch != tc.branch || st.Repository != tc.repository || st.ObservedGeneration != 3 {
				t.Errorf("status = %+v, want phase %s branch %q repository %q generation 3", st, tc.phase, tc.branch, tc.repository)
			}
			c := meta.FindStatusCondition(st.Conditions, v1alpha1.ArenaProjectConditionReady)
			if c == nil || c.Status != tc.status || c.Reason != tc.reason || c.ObservedGeneration != 3 {
				t.Fatalf("Ready = %+v, want %s %s", c, tc.status, tc.reason)
			}
		})
	}
}

func TestBackoffDelay(t *testing.T) {
	cases := []struct {
		failures int
		want     time.Duration
	}{{0, 0}, {1, 10 * time.Second}, {2, 20 * time.Second}, {3, 40 * time.Second}, {7, 10 * time.Minute}, {50, 10 * time.Minute}}
	for _, tc := range cases {
		if got := backoffDelay(tc.failures, 10*time.Second, 10*time.Minute); got != tc.want {
			t.Errorf("backoffDelay(%d) = %s, want %s", tc.failures, got, tc.want)
		}
	}
}

// TestPerProjectBackoff: failed looks back off per project (doubling), a
// success or a spec change clears it, and a recreated project (new UID)
// starts afresh.
func TestPerProjectBackoff(t *testing.T) {
	r := NewReconciler(nil, nil, nil, nil, Options{})
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	p := &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "u1", Generation: 1}}
	other := &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q", UID: "u2", Generation: 1}}
	if d := r.due(p, now); d != 0 {
		t.Fatalf("first look due in %s", d)
	}
	if d := r.record(p, true, now); d != 10*time.Second {
		t.Errorf("first failure retries in %s, want 10s", d)
	}
	if d := r.due(p, now.Add(4*time.Second)); d != 6*time.Second {
		t.Errorf("due after 4s = %s, want 6s", d)
	}
	if d := r.due(other, now); d != 0 {
		t.Errorf("another project is held by p's backoff: %s", d)
	}
	if d := r.record(p, true, now.Add(10*time.Second)); d != 20*time.Second {
		t.Errorf("second failure retries in %s, want 20s", d)
	}
	recreated := p.DeepCopy()
	recreated.UID = "u3"
	if d := r.due(recreated, now.Add(11*time.Second)); d != 0 {
		t.Errorf("a recreated project waits %s", d)
	}
	r.record(p, true, now)
	edited := p.DeepCopy()
	edited.Generation = 2
	if d := r.due(edited, now); d != 0 {
		t.Errorf("an edited project waits %s", d)
	}
	if d := r.record(edited, true, now); d != 10*time.Second {
		t.Errorf("after an edit the backoff restarts at %s, want 10s", d)
	}
	if d := r.record(edited, false, now); d != DefaultRefreshInterval {
		t.Errorf("a success looks again in %s, want %s", d, DefaultRefreshInterval)
	}
	// After a success a reconcile sooner than RefreshInterval (a stray
	// event, a fetcher notification) does not look again: each look is one
	// listing job. A failure after it starts the backoff afresh.
	if d := r.due(edited, now.Add(time.Minute)); d != DefaultRefreshInterval-time.Minute {
		t.Errorf("a minute after a success the project waits %s, want %s", d, DefaultRefreshInterval-time.Minute)
	}
	if d := r.record(edited, true, now); d != 10*time.Second {
		t.Errorf("a failure after a success retries in %s, want 10s", d)
	}
}
