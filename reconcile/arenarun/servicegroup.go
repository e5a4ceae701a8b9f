package arenarun

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// redisHash fingerprints a group's redis block (status.queue.configHash).
func redisHash(r *v1alpha1.WorkspaceServiceBlock) string {
	if r == nil {
		return ""
	}
	b, _ := json.Marshal(r)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
