package arenarun

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The configHash follows where a group's redis points: a change of the
// Redis named (url, host, port, tls, Service, Secret reference) changes it;
// a change that leaves the queue where it was does not.
func TestRedisHash(t *testing.T) {
	const ns = "team-a"
	enabled := true
	withPods := &v1alpha1.PodOverrides{NodeSelector: map[string]string{"pool": "redis"}}
	svc := func(name, namespace string, port int32) *v1alpha1.WorkspaceRedis {
		return &v1alpha1.WorkspaceRedis{ServiceRef: &v1alpha1.WorkspaceRedisServiceRef{Name: name, Namespace: namespace, Port: port}}
	}
	secret := func(name, key string) *v1alpha1.WorkspaceRedis {
		return &v1alpha1.WorkspaceRedis{ExistingSecret: &v1alpha1.WorkspaceRedisSecretRef{Name: name, Key: key}}
	}
	cases := []struct {
		name string
		a, b *v1alpha1.WorkspaceRedis
		same bool
	}{
		{"url unchanged but enabled and podOverrides added", &v1alpha1.WorkspaceRedis{URL: "redis://r:6379"},
			&v1alpha1.WorkspaceRedis{URL: "redis://r:6379", Enabled: &enabled, PodOverrides: withPods}, true},
		{"url rewritten as the same host", &v1alpha1.WorkspaceRedis{URL: "redis://r:6379"}, &v1alpha1.WorkspaceRedis{Host: "r"}, true},
		{"host with the default port written out", &v1alpha1.WorkspaceRedis{Host: "r"}, &v1alpha1.WorkspaceRedis{Host: "r:6379"}, true},
		{"serviceRef with its defaults written out", svc("redis", "", 0), svc("redis", ns, 6379), true},
		{"existingSecret with key url written out", secret("conn", ""), secret("conn", "url"), true},
		{"another url", &v1alpha1.WorkspaceRedis{URL: "redis://r:6379"}, &v1alpha1.WorkspaceRedis{URL: "redis://r:6379/1"}, false},
		{"another host", &v1alpha1.WorkspaceRedis{Host: "r"}, &v1alpha1.WorkspaceRedis{Host: "s"}, false},
		{"another port", &v1alpha1.WorkspaceRedis{Host: "r"}, &v1alpha1.WorkspaceRedis{Host: "r:6380"}, false},
		{"tls turned on", &v1alpha1.WorkspaceRedis{Host: "r"}, &v1alpha1.WorkspaceRedis{Host: "r", TLS: true}, false},
		{"another Service", svc("redis", "", 0), svc("redis2", "", 0), false},
		{"the Service in another namespace", svc("redis", "", 0), svc("redis", "platform", 0), false},
		{"the Service's port", svc("redis", "", 0), svc("redis", "", 7000), false},
		{"another Secret", secret("conn", ""), secret("conn2", ""), false},
		{"another key", secret("conn", ""), secret("conn", "REDIS_URL"), false},
		{"url to existingSecret", &v1alpha1.WorkspaceRedis{URL: "redis://r:6379"}, secret("conn", ""), false},
		{"url to managed", &v1alpha1.WorkspaceRedis{URL: "redis://r:6379"}, &v1alpha1.WorkspaceRedis{Enabled: &enabled}, false},
		{"redis removed", &v1alpha1.WorkspaceRedis{URL: "redis://r:6379"}, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pinned := redisHash(c.a, ns)
			if pinned == "" {
				t.Fatal("no hash for a redis")
			}
			if got := currentRedisHash(pinned, c.b, ns) == pinned; got != c.same {
				t.Errorf("same = %v, want %v", got, c.same)
			}
		})
	}
}

// A run pinned before the new forms keeps its configHash: a url-only group
// hashes as the old WorkspaceServiceBlock did, and a url group that also set
// enabled or podOverrides is recognised under its old hash until it
// changes.
func TestRedisHashOfRunsPinnedBefore(t *testing.T) {
	const u = "redis://:pw@r:6379/0"
	old := func(b v1alpha1.WorkspaceServiceBlock) string { return hashJSON(b) } // the former redisHash
	enabled := true
	pods := &v1alpha1.PodOverrides{Tolerations: []corev1.Toleration{{Key: "redis"}}}

	if got, want := redisHash(&v1alpha1.WorkspaceRedis{URL: u}, "ns"), old(v1alpha1.WorkspaceServiceBlock{URL: u}); got != want {
		t.Fatalf("url-only hash %s, was %s", got, want)
	}
	pinned := old(v1alpha1.WorkspaceServiceBlock{URL: u, Enabled: &enabled, PodOverrides: pods})
	now := &v1alpha1.WorkspaceRedis{URL: u, Enabled: &enabled, PodOverrides: pods}
	if got := currentRedisHash(pinned, now, "ns"); got != pinned {
		t.Fatalf("unchanged block drifted: %s, pinned %s", got, pinned)
	}
	now.URL = "redis://:pw@other:6379/0"
	if got := currentRedisHash(pinned, now, "ns"); got == pinned {
		t.Fatal("a changed url under the old hash did not drift")
	}
}
