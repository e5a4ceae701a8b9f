package arenarun

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// redisHash fingerprints where a group's redis sends the queue
// (status.queue.configHash): the URL the controller writes for a url, host
// or serviceRef group, the Secret's name and key for an existingSecret
// group. So QueueRedisDrifted fires when the Redis the group names changes
// (another url, host, port, tls, Service, or Secret reference), and not for
// a change that leaves it where it was (enabled or podOverrides next to a
// url, a default written out, url redis://r:6379 rewritten as host r). For
// existingSecret it covers the reference, not the Secret's value: the run
// was pinned to the Secret, and a new value in it is read by the next
// worker pod that starts (see docs/arena.md § The queue's Redis).
//
// A url-only group hashes exactly as before these forms existed ({"url":…}),
// so runs pinned then keep their configHash. nil (the group has no redis)
// is "".
func redisHash(r *v1alpha1.WorkspaceRedis, wsNamespace string) string {
	if r == nil {
		return ""
	}
	src := rules.ArenaRunQueueRedis(&v1alpha1.WorkspaceServiceGroup{Redis: r}, wsNamespace)
	switch {
	case src.RetryMessage != "":
		// No usable source: hash the block itself, so it differs from any
		// pinned source.
		return hashJSON(r)
	case src.Form == rules.ArenaRunQueueRedisExistingSecret:
		return hashJSON(struct {
			ExistingSecret v1alpha1.WorkspaceRedisSecretRef `json:"existingSecret"`
		}{v1alpha1.WorkspaceRedisSecretRef{Name: src.SecretName, Key: src.SecretKey}})
	default:
		return urlHash(src.URL)
	}
}

// urlHash is the configHash of a group whose queue URL the controller
// writes: the URL, as written to <run>-queue-redis. The controller also
// checks that Secret's value against it (queuesecret.go) when the group
// changed since the run was pinned.
func urlHash(url string) string {
	return hashJSON(struct {
		URL string `json:"url"`
	}{url})
}

// legacyRedisHash is the configHash of a run pinned before these forms: the
// whole block as it was then (enabled, url, podOverrides).
func legacyRedisHash(r *v1alpha1.WorkspaceRedis) string {
	if r == nil {
		return ""
	}
	return hashJSON(struct {
		Enabled      *bool                  `json:"enabled,omitempty"`
		URL          string                 `json:"url,omitempty"`
		PodOverrides *v1alpha1.PodOverrides `json:"podOverrides,omitempty"`
	}{r.Enabled, r.URL, r.PodOverrides})
}

// currentRedisHash is the group's configHash now, for comparing with the
// pinned one: a run pinned under the old fingerprint of an unchanged url
// block is not drifted.
func currentRedisHash(pinned string, r *v1alpha1.WorkspaceRedis, wsNamespace string) string {
	h := redisHash(r, wsNamespace)
	if pinned != h && pinned != "" && r != nil && r.URL != "" && pinned == legacyRedisHash(r) {
		return pinned
	}
	return h
}

func hashJSON(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
