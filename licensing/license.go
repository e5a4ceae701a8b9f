// Package licensing is the licence of an Omnia installation: its format (a
// signed JWT), the check of its signature against the public keys the
// operator is given, and what it grants (features and limits). It is pure
// apart from reading key files: the Secret watcher that feeds it lives in
// licensing/reload, and rules see the result as rules.License (an alias of
// License), so every consumer — webhook, reconcilers, omniactl — asks the
// same value.
package licensing

import (
	"slices"
	"time"
)

// Tier is the licence tier.
type Tier string

const (
	// TierOpenCore is the tier without enterprise features.
	TierOpenCore Tier = "open-core"
	// TierEnterprise is the licensed tier.
	TierEnterprise Tier = "enterprise"
)

// The features a licence may grant (claim "features"), as the issue's
// licence format names them.
const (
	FeatureCustomFacade       = "customFacade"
	FeatureLoadTesting        = "loadTesting"
	FeatureDataGeneration     = "dataGeneration"
	FeatureScheduling         = "scheduling"
	FeatureDistributedWorkers = "distributedWorkers"
	// FeaturePolicyProxy is ToolPolicy enforcement.
	FeaturePolicyProxy = "policyProxy"
	FeatureGitSource   = "gitSource"
	FeatureOCISource   = "ociSource"
	FeatureS3Source    = "s3Source"
)

// AllFeatures lists every feature this operator knows, in a stable order.
// A licence may name others (granted by a newer issuer); they are kept and
// ignored.
var AllFeatures = []string{
	FeatureCustomFacade, FeatureLoadTesting, FeatureDataGeneration, FeatureScheduling,
	FeatureDistributedWorkers, FeaturePolicyProxy, FeatureGitSource, FeatureOCISource, FeatureS3Source,
}

// The open-core limits: what applies with no licence, a refused licence, or
// a licence without a "limits" claim.
const (
	OpenCoreMaxScenarios      = 10
	OpenCoreMaxWorkerReplicas = 1
)

// Limits are a licence's numeric limits; 0 means unlimited.
type Limits struct {
	MaxScenarios      int `json:"maxScenarios"`
	MaxWorkerReplicas int `json:"maxWorkerReplicas"`
}

// OpenCoreLimits are the limits of the open-core licence.
func OpenCoreLimits() Limits {
	return Limits{MaxScenarios: OpenCoreMaxScenarios, MaxWorkerReplicas: OpenCoreMaxWorkerReplicas}
}

// License is what a verified licence grants. The zero value is the open-core
// licence: no features, and (Limits nil) the open-core limits — so a consumer
// that was handed no licence never gets unlimited use.
type License struct {
	// ID is the licence's "lid" claim.
	ID string `json:"lid,omitempty"`
	// Tier is open-core or enterprise ("" reads as open-core).
	Tier Tier `json:"tier,omitempty"`
	// Customer the licence was issued to.
	Customer string `json:"customer,omitempty"`
	// IssuedAt and ExpiresAt are the "iat" and "exp" claims.
	IssuedAt  time.Time `json:"issuedAt,omitzero"`
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	// Features granted, by name (FeatureCustomFacade, ...).
	Features map[string]bool `json:"features,omitempty"`
	// Limits, nil for the open-core limits.
	Limits *Limits `json:"limits,omitempty"`
}

// OpenCore is the licence in force without a valid one.
func OpenCore() License { return License{Tier: TierOpenCore} }

// Has reports whether the licence grants feature.
func (l License) Has(feature string) bool { return l.Features[feature] }

// Enterprise reports whether the licence is of the enterprise tier.
func (l License) Enterprise() bool { return l.Tier == TierEnterprise }

// EffectiveLimits are the licence's limits, the open-core ones when it sets
// none.
func (l License) EffectiveLimits() Limits {
	if l.Limits == nil {
		return OpenCoreLimits()
	}
	return *l.Limits
}

// MaxScenarios is the most scenarios a run may hold; 0 means unlimited.
func (l License) MaxScenarios() int { return l.EffectiveLimits().MaxScenarios }

// MaxWorkerReplicas is the most workers a run may start; 0 means unlimited.
func (l License) MaxWorkerReplicas() int { return l.EffectiveLimits().MaxWorkerReplicas }

// FeatureList returns the granted features, sorted.
func (l License) FeatureList() []string {
	var out []string
	for f, ok := range l.Features {
		if ok {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// Current returns l: a fixed licence is its own source (see Source).
func (l License) Current() License { return l }

// Source hands out the licence in force now. A Store changes its answer when
// the licence Secret changes; a License is a source that never changes.
type Source interface {
	Current() License
}
