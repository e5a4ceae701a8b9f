package auth

import (
	"crypto"
	"slices"
)

// SharedKeys lists the kids of a whose public key is also in b, sorted. The
// operator refuses to start when the deploy tokens' and the delegation
// tokens' key sets share a key: a key in both would let a holder of the
// delegation key mint deploy tokens.
func SharedKeys(a, b StaticKeys) []string {
	var shared []string
	for kid, ka := range a {
		pa, ok := ka.Public.(interface{ Equal(crypto.PublicKey) bool })
		if !ok {
			continue
		}
		for _, kb := range b {
			if pa.Equal(kb.Public) {
				shared = append(shared, kid)
				break
			}
		}
	}
	slices.Sort(shared)
	return shared
}
