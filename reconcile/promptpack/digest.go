package promptpack

import (
	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// contentDigest is status.contentDigest for a computed status: the digest of
// the pack.json the rules validated (rules.PromptPackContentDigest) while
// the pack is Ready, and empty otherwise — an Invalid pack publishes no
// identity, so an agent's compositionDigest stays empty on it. packJSON is
// the value read in the same evaluation as the findings (the Facts remember
// the ConfigMap), so the digest names exactly the content that validated.
func contentDigest(st v1alpha1.PromptPackStatus, packJSON []byte, hasKey bool) string {
	if st.Phase != v1alpha1.PromptPackPhaseReady || !hasKey {
		return ""
	}
	return rules.PromptPackContentDigest(packJSON)
}
