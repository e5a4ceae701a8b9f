package toolregistry

// The "did anything change" decision: Reconcile writes the status only when
// computeStatus gives something other than the stored status, so every field
// must stay put unless what it reports changed. One case where the field
// stays and one where it moves, per field.

import (
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestLastChecked(t *testing.T) {
	earlier := metav1.NewTime(t0.Add(-time.Minute))
	probeAt := t0.Add(300 * time.Millisecond) // stored truncated to t0
	stored := func(st v1alpha1.ToolRegistryToolStatus, errText string) v1alpha1.ToolRegistryDiscoveredTool {
		tl := tool("h", "h", st, errText)
		tl.LastChecked = &earlier
		return tl
	}
	for _, tc := range []struct {
		name      string
		probed    v1alpha1.ToolRegistryDiscoveredTool
		stored    v1alpha1.ToolRegistryDiscoveredTool
		hadStored bool
		want      metav1.Time
	}{
		{"same status, no error: kept", tool("h", "h", avail, ""), stored(avail, ""), true, earlier},
		{"same status and error: kept", tool("h", "h", unavail, "TCP connect failed: refused"), stored(unavail, "TCP connect failed: refused"), true, earlier},
		{"status flipped: the probe's time", tool("h", "h", unavail, "TCP connect failed: refused"), stored(avail, ""), true, now0},
		{"back up: the probe's time", tool("h", "h", avail, ""), stored(unavail, "TCP connect failed: refused"), true, now0},
		{"same status, other error: the probe's time", tool("h", "h", unavail, "TCP connect failed: timeout"), stored(unavail, "TCP connect failed: refused"), true, now0},
		{"no stored result (first probe): the probe's time", tool("h", "h", avail, ""), v1alpha1.ToolRegistryDiscoveredTool{}, false, now0},
		{"stored result without a time: the probe's time", tool("h", "h", avail, ""), tool("h", "h", avail, ""), true, now0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := lastChecked(tc.probed, tc.stored, tc.hadStored, probeAt)
			if got == nil || !got.Equal(&tc.want) {
				t.Errorf("lastChecked = %v, want %v", got, tc.want)
			}
			if tc.stored.LastChecked != nil && got == tc.stored.LastChecked {
				t.Error("returned the stored pointer: the new status would alias the old one")
			}
		})
	}
}

func TestDiscoveryChanged(t *testing.T) {
	st := &v1alpha1.ToolRegistryStatus{ContentDigest: "sha256:a", LastDiscoveryTime: &now0, ObservedGeneration: 1}
	for _, tc := range []struct {
		name   string
		old    *v1alpha1.ToolRegistryStatus
		digest string
		want   bool
	}{
		{"same tool set: stays", st, "sha256:a", false},
		{"another tool set: moves", st, "sha256:b", true},
		{"never set: moves", &v1alpha1.ToolRegistryStatus{ContentDigest: "sha256:a"}, "sha256:a", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := discoveryChanged(tc.old, tc.digest); got != tc.want {
				t.Errorf("discoveryChanged = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestStatusChangesOnlyWithWhatItReports settles a probed registry (tool a
// reachable, tool b refused, selected by ToolPolicy p) at t0, then
// recomputes it a probe interval later from one change, or none, and says
// whether the status must be written and whether the field under test moved.
func TestStatusChangesOnlyWithWhatItReports(t *testing.T) {
	refused := errors.New("dial tcp b:2: connect: connection refused")
	timedOut := errors.New("dial tcp b:2: i/o timeout")
	settledResults := map[string]error{"a:1": nil, "b:2": refused}
	settledPolicy := policyState{installed: true, names: []string{"p"}}
	later := t0.Add(30 * time.Second)

	settle := func() *v1alpha1.ToolRegistry {
		on := true
		tr := registry(httpHandler("a", "http://a:1/x"), httpHandler("b", "http://b:2/x"))
		tr.Spec.Probe = &v1alpha1.ToolRegistryProbe{Enabled: &on, Interval: "30s", Timeout: "1s"}
		tr.Status = evaluate(tr, settledPolicy, settledResults, t0)
		if tr.Status.Phase != v1alpha1.ToolRegistryPhaseDegraded {
			t.Fatalf("settled phase = %s, want Degraded", tr.Status.Phase)
		}
		return tr
	}
	toolA := func(st *v1alpha1.ToolRegistryStatus) v1alpha1.ToolRegistryDiscoveredTool {
		return st.DiscoveredTools[0]
	}
	toolB := func(st *v1alpha1.ToolRegistryStatus) v1alpha1.ToolRegistryDiscoveredTool {
		return st.DiscoveredTools[1]
	}
	transition := func(typ string) func(st *v1alpha1.ToolRegistryStatus) any {
		return func(st *v1alpha1.ToolRegistryStatus) any { return cond(st, typ).LastTransitionTime }
	}
	// The changes a case makes before the next reconcile.
	type change = func(tr *v1alpha1.ToolRegistry) (map[string]error, policyState)
	nothing := func(*v1alpha1.ToolRegistry) (map[string]error, policyState) { return settledResults, settledPolicy }
	probed := func(results map[string]error) change {
		return func(*v1alpha1.ToolRegistry) (map[string]error, policyState) { return results, settledPolicy }
	}
	bBack := probed(map[string]error{"a:1": nil, "b:2": nil})
	bTimesOut := probed(map[string]error{"a:1": nil, "b:2": timedOut})
	timeoutEdit := func(tr *v1alpha1.ToolRegistry) (map[string]error, policyState) {
		tr.Generation, tr.Spec.Probe.Timeout = 2, "2s"
		return settledResults, settledPolicy
	}
	describedAnew := func(tr *v1alpha1.ToolRegistry) (map[string]error, policyState) {
		tr.Generation, tr.Spec.Handlers[0].Tool.Description = 2, "another description"
		return settledResults, settledPolicy
	}

	for _, tc := range []struct {
		name string
		// change edits the settled registry (spec, generation) and returns
		// the probe results and ToolPolicies of the next reconcile.
		change    change
		field     func(st *v1alpha1.ToolRegistryStatus) any
		wantMoved bool
		wantWrite bool
	}{
		{
			name:   "lastChecked: a round that finds both tools as before",
			change: nothing,
			field: func(st *v1alpha1.ToolRegistryStatus) any {
				return [2]*metav1.Time{toolA(st).LastChecked, toolB(st).LastChecked}
			},
		},
		{
			name:   "lastChecked: a round in which a goes down",
			change: probed(map[string]error{"a:1": refused, "b:2": refused}),
			field:  func(st *v1alpha1.ToolRegistryStatus) any { return toolA(st).LastChecked }, wantMoved: true, wantWrite: true,
		},
		{
			name:   "error: b refused again",
			change: nothing,
			field:  func(st *v1alpha1.ToolRegistryStatus) any { return toolB(st).Error },
		},
		{
			name:   "error: b times out instead",
			change: bTimesOut,
			field:  func(st *v1alpha1.ToolRegistryStatus) any { return toolB(st).Error }, wantMoved: true, wantWrite: true,
		},
		{
			name:   "phase: no result changed",
			change: nothing,
			field:  func(st *v1alpha1.ToolRegistryStatus) any { return st.Phase },
		},
		{
			name:   "phase: b comes back",
			change: bBack,
			field:  func(st *v1alpha1.ToolRegistryStatus) any { return st.Phase }, wantMoved: true, wantWrite: true,
		},
		{
			name:   "Degraded lastTransitionTime: its message changes, its status does not",
			change: bTimesOut,
			field:  transition(v1alpha1.ToolRegistryConditionDegraded), wantWrite: true,
		},
		{
			name:   "Degraded lastTransitionTime: it clears",
			change: bBack,
			field:  transition(v1alpha1.ToolRegistryConditionDegraded), wantMoved: true, wantWrite: true,
		},
		{
			name:   "observedGeneration: the same generation",
			change: nothing,
			field:  func(st *v1alpha1.ToolRegistryStatus) any { return st.ObservedGeneration },
		},
		{
			name:   "observedGeneration: a spec edit",
			change: timeoutEdit,
			field:  func(st *v1alpha1.ToolRegistryStatus) any { return st.ObservedGeneration }, wantMoved: true, wantWrite: true,
		},
		{
			name:   "lastDiscoveryTime: a spec edit that resolves to the same tools",
			change: timeoutEdit,
			field:  func(st *v1alpha1.ToolRegistryStatus) any { return st.LastDiscoveryTime }, wantWrite: true,
		},
		{
			name:   "lastDiscoveryTime: a tool's description changes",
			change: describedAnew,
			field:  func(st *v1alpha1.ToolRegistryStatus) any { return st.LastDiscoveryTime }, wantMoved: true, wantWrite: true,
		},
		{
			name:   "contentDigest: a probe flips a tool",
			change: bBack,
			field:  func(st *v1alpha1.ToolRegistryStatus) any { return st.ContentDigest }, wantWrite: true,
		},
		{
			name:   "contentDigest: a tool's description changes",
			change: describedAnew,
			field:  func(st *v1alpha1.ToolRegistryStatus) any { return st.ContentDigest }, wantMoved: true, wantWrite: true,
		},
		{
			name:   "policyCount: the same ToolPolicies",
			change: nothing,
			field:  func(st *v1alpha1.ToolRegistryStatus) any { return *st.PolicyCount },
		},
		{
			name: "policyCount: a second ToolPolicy",
			change: func(*v1alpha1.ToolRegistry) (map[string]error, policyState) {
				return settledResults, policyState{installed: true, names: []string{"p", "q"}}
			},
			field: func(st *v1alpha1.ToolRegistryStatus) any { return *st.PolicyCount }, wantMoved: true, wantWrite: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := settle()
			before := *tr.Status.DeepCopy()
			results, policy := tc.change(tr)
			after := evaluate(tr, policy, results, later)
			if moved := !equality.Semantic.DeepEqual(tc.field(&before), tc.field(&after)); moved != tc.wantMoved {
				t.Errorf("field moved = %v, want %v: %v → %v", moved, tc.wantMoved, tc.field(&before), tc.field(&after))
			}
			if write := !equality.Semantic.DeepEqual(before, after); write != tc.wantWrite {
				t.Errorf("status changed = %v, want %v:\nwas %+v\nnow %+v", write, tc.wantWrite, before, after)
			}
		})
	}
}

// TestChangedResultStampsTheProbeTime: when a round changes a tool's
// result, its lastChecked is that round's time and the other tool's stays.
func TestChangedResultStampsTheProbeTime(t *testing.T) {
	on := true
	tr := registry(httpHandler("a", "http://a:1/x"), httpHandler("b", "http://b:2/x"))
	tr.Spec.Probe = &v1alpha1.ToolRegistryProbe{Enabled: &on, Interval: "30s", Timeout: "1s"}
	tr.Status = evaluate(tr, policyState{}, map[string]error{"a:1": nil, "b:2": nil}, t0)
	later := t0.Add(90 * time.Second)
	down := evaluate(tr, policyState{}, map[string]error{"a:1": nil, "b:2": errors.New("refused")}, later)
	if a := down.DiscoveredTools[0].LastChecked; a == nil || !a.Time.Equal(t0) {
		t.Errorf("a's lastChecked = %v, want %v (its result did not change)", a, t0)
	}
	if b := down.DiscoveredTools[1]; b.Status != unavail || b.LastChecked == nil || !b.LastChecked.Time.Equal(later) {
		t.Errorf("b = %+v, want Unavailable checked at %v", b, later)
	}
}
