package clusterfacts

import "github.com/altairalabs/omnia/rules"

// WithExposureBaseDomain makes the facts answer domain as the operator's
// --exposure-base-domain (rules.Facts.ExposureBaseDomain): an operator
// setting, not cluster state, so every consumer that evaluates with these
// facts (the reconciler, the webhook, the deploy API) is handed the same
// one. Empty: exposure is off. It returns f.
func (f *Facts) WithExposureBaseDomain(domain string) *Facts {
	f.exposureBaseDomain = rules.NormalizeExposeHost(domain)
	return f
}

// ExposureBaseDomain implements rules.Facts.
func (f *Facts) ExposureBaseDomain() string { return f.exposureBaseDomain }
