package intent

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// DevNameHashLen is the number of hex digits of the hash in a fallback dev
// name.
const DevNameHashLen = 10

// dnsLabelMax is the length of an RFC 1123 label: the names of the dev
// agent, its pack and its PromptPackSource must be one
// (validation.IsDNS1123Label).
const dnsLabelMax = validation.DNS1123LabelMaxLength

// DevName is the name of a project's dev agent, its PromptPack and its
// PromptPackSource (deploy-intent.md § Deploying a project to a dev agent):
// dev-<id>-<user>, userPseudonym being the caller's pseudonymised user from
// the verified token.
//
// When that is not a valid DNS label (too long, or the id has '.' or '_',
// or the pseudonym has characters a label cannot), the name is
// dev-<sanitized id>-<hash>: the id lower-cased, every character outside
// [a-z0-9-] turned into '-', runs of '-' collapsed, trimmed of '-' and cut
// so the whole name fits 63 characters; <hash> the first DevNameHashLen hex
// digits of SHA-256 over id, a NUL, and user. Distinct (id, user) pairs
// keep distinct names (up to the hash), and the same pair always gives the
// same name.
func DevName(projectID, userPseudonym string) string {
	name := "dev-" + projectID + "-" + userPseudonym
	if len(validation.IsDNS1123Label(name)) == 0 {
		return name
	}
	sum := sha256.Sum256([]byte(projectID + "\x00" + userPseudonym))
	hash := hex.EncodeToString(sum[:])[:DevNameHashLen]
	id := sanitizeLabel(projectID, dnsLabelMax-len("dev-")-1-DevNameHashLen)
	if id == "" {
		return "dev-" + hash
	}
	return "dev-" + id + "-" + hash
}

// sanitizeLabel maps s onto [a-z0-9-], collapses and trims '-', and cuts it
// to at most max characters (trimming a '-' the cut leaves at the end).
func sanitizeLabel(s string, max int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > max {
		out = strings.TrimRight(out[:max], "-")
	}
	return out
}
