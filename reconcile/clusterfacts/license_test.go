package clusterfacts

import (
	"context"
	"testing"

	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/rules"
)

// TestLicenseFollowsTheSource: each Facts reads the licence source once, so
// a reload (the Secret watcher storing a new licence) reaches the next
// evaluation without a restart, and one evaluation sees one licence.
func TestLicenseFollowsTheSource(t *testing.T) {
	store := licensing.NewStore()
	before := New(context.Background(), mapReader{}, nil, nil, store)
	store.Set(licensing.State{Verified: true, License: rules.License{Tier: licensing.TierEnterprise,
		Features: map[string]bool{rules.FeatureCustomFacade: true}}})
	after := New(context.Background(), mapReader{}, nil, nil, store)

	if before.License().Has(rules.FeatureCustomFacade) {
		t.Error("an evaluation started before the reload changed licence midway")
	}
	if !after.License().Has(rules.FeatureCustomFacade) {
		t.Error("an evaluation after the reload does not see the new licence")
	}
	if l := New(context.Background(), mapReader{}, nil, nil, nil).License(); l.Enterprise() || l.MaxWorkerReplicas() != licensing.OpenCoreMaxWorkerReplicas {
		t.Errorf("no source: %+v, want the open-core licence", l)
	}
}
