package rules

import (
	"crypto/sha256"
	"encoding/hex"
)

// PromptPackContentDigest is a PromptPack's status.contentDigest:
// "sha256:<hex>" over the bytes of its pack.json exactly as the ConfigMap
// holds them (data, else binaryData) — the bytes the runtime reads from its
// mounted pack. Any edit of the value is a new identity, whitespace
// included: the digest names content, it does not judge equivalence.
func PromptPackContentDigest(packJSON []byte) string {
	sum := sha256.Sum256(packJSON)
	return "sha256:" + hex.EncodeToString(sum[:])
}
