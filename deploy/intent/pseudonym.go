package intent

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// PseudonymHexLen is the number of hex digits of the MAC in a pseudonym.
const PseudonymHexLen = 12

// pseudonymDomain separates the pseudonym's hash from any other use of
// SHA-256 over a token subject.
const pseudonymDomain = "omnia.altairalabs.ai/arena-user/v1\x00"

// Pseudonym is the user of a dev project intent as it appears in names and
// in the omnia.altairalabs.ai/arena-user label (deploy-intent.md §
// Deploying a project to a dev agent): "u" followed by the first
// PseudonymHexLen hex digits of HMAC-SHA256(key, domain || subject), 13
// characters, a DNS label and a label value. subject is the verified
// token's sub. key is the operator's pseudonym key (read from a file the
// operator is given, so it survives restarts); with no key the MAC is a
// plain SHA-256 over the same bytes. It is pure: the same subject and key
// always give the same pseudonym, and the subject cannot be read back from
// it (with a key, it cannot even be confirmed by guessing subjects).
//
// An empty subject has no pseudonym: "" (the deploy API answers 403).
func Pseudonym(subject string, key []byte) string {
	if subject == "" {
		return ""
	}
	var sum []byte
	if len(key) > 0 {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(pseudonymDomain))
		m.Write([]byte(subject))
		sum = m.Sum(nil)
	} else {
		s := sha256.Sum256([]byte(pseudonymDomain + subject))
		sum = s[:]
	}
	return "u" + hex.EncodeToString(sum)[:PseudonymHexLen]
}
