package admission

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/altairalabs/omnia/rules"
)

// auditAnnotationPrefix keys audit annotations; the API server prefixes them
// with the webhook name.
const auditAnnotationPrefix = "finding-"

// maxAuditKey is the longest name part of a qualified name: the API server
// drops (with a log line) an audit annotation whose key
// "<webhook name>/<key>" is not a valid qualified name.
const maxAuditKey = 63

// maxAuditValue bounds one annotation's value: the findings of one rule
// are joined into it.
const maxAuditValue = 2048

// auditKey is the annotation key of a rule's findings: the prefix and the
// rule ID with "/" as "." (a policy rule's policy/<policy>/<rule> too),
// shortened with a hash of the ID when too long, so distinct rules keep
// distinct keys.
func auditKey(ruleID string) string {
	key := auditAnnotationPrefix + strings.ReplaceAll(ruleID, "/", ".")
	if len(key) <= maxAuditKey {
		return key
	}
	sum := sha256.Sum256([]byte(ruleID))
	return key[:maxAuditKey-9] + "-" + hex.EncodeToString(sum[:4])
}

// annotate records f in the request's audit annotations; several findings
// of one rule share its key, joined with "; ", bounded.
func annotate(audit map[string]string, f rules.Finding) {
	key := auditKey(f.RuleID)
	v := f.Field + ": " + f.Message
	if prev, ok := audit[key]; ok {
		if strings.Contains(prev, v) {
			return
		}
		v = prev + "; " + v
	}
	if len(v) > maxAuditValue {
		v = v[:maxAuditValue-3] + "..."
	}
	audit[key] = v
}
