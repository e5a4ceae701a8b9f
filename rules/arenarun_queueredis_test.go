package rules

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestArenaRunQueueRedis(t *testing.T) {
	group := func(r *v1alpha1.WorkspaceRedis) *v1alpha1.WorkspaceServiceGroup {
		return &v1alpha1.WorkspaceServiceGroup{Name: "g", Redis: r}
	}
	cases := []struct {
		name       string
		group      *v1alpha1.WorkspaceServiceGroup
		form       ArenaRunQueueRedisForm
		url        string
		secret     [2]string
		retry      string // substring of RetryMessage; "" for none
		notWritten bool
	}{
		{name: "url as written", group: group(&v1alpha1.WorkspaceRedis{URL: "rediss://:pw@r.example:6380/2"}),
			form: ArenaRunQueueRedisURL, url: "rediss://:pw@r.example:6380/2"},
		{name: "host with its port", group: group(&v1alpha1.WorkspaceRedis{Host: "redis.example.internal:6380"}),
			form: ArenaRunQueueRedisHost, url: "redis://redis.example.internal:6380"},
		{name: "host takes the default port", group: group(&v1alpha1.WorkspaceRedis{Host: "10.0.0.7"}),
			form: ArenaRunQueueRedisHost, url: "redis://10.0.0.7:6379"},
		{name: "IPv6 host with a port", group: group(&v1alpha1.WorkspaceRedis{Host: "[fd00::10]:7000"}),
			form: ArenaRunQueueRedisHost, url: "redis://[fd00::10]:7000"},
		{name: "IPv6 host takes the default port", group: group(&v1alpha1.WorkspaceRedis{Host: "[fd00::10]"}),
			form: ArenaRunQueueRedisHost, url: "redis://[fd00::10]:6379"},
		{name: "host with tls", group: group(&v1alpha1.WorkspaceRedis{Host: "r.example", TLS: true}),
			form: ArenaRunQueueRedisHost, url: "rediss://r.example:6379"},
		{name: "serviceRef in the workspace namespace", group: group(&v1alpha1.WorkspaceRedis{ServiceRef: &v1alpha1.WorkspaceRedisServiceRef{Name: "redis"}}),
			form: ArenaRunQueueRedisServiceRef, url: "redis://redis.team-a.svc:6379"},
		{name: "serviceRef elsewhere on its port with tls", group: group(&v1alpha1.WorkspaceRedis{TLS: true,
			ServiceRef: &v1alpha1.WorkspaceRedisServiceRef{Name: "shared", Namespace: "platform", Port: 7000}}),
			form: ArenaRunQueueRedisServiceRef, url: "rediss://shared.platform.svc:7000"},
		{name: "existingSecret with its key", group: group(&v1alpha1.WorkspaceRedis{ExistingSecret: &v1alpha1.WorkspaceRedisSecretRef{Name: "redis-conn", Key: "REDIS_URL"}}),
			form: ArenaRunQueueRedisExistingSecret, secret: [2]string{"redis-conn", "REDIS_URL"}, notWritten: true},
		{name: "existingSecret takes key url", group: group(&v1alpha1.WorkspaceRedis{ExistingSecret: &v1alpha1.WorkspaceRedisSecretRef{Name: "redis-conn"}}),
			form: ArenaRunQueueRedisExistingSecret, secret: [2]string{"redis-conn", "url"}, notWritten: true},
		{name: "no group", group: nil, retry: "sets no redis", notWritten: true},
		{name: "no redis", group: group(nil), retry: "sets no redis", notWritten: true},
		{name: "managed redis", group: group(&v1alpha1.WorkspaceRedis{Enabled: new(true)}), retry: "a managed redis is not run", notWritten: true},
		{name: "two forms (stored before the schema rule)", group: group(&v1alpha1.WorkspaceRedis{URL: "redis://a:1", Host: "b"}),
			retry: "sets url and host", notWritten: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ArenaRunQueueRedis(c.group, "team-a")
			if got.Form != c.form || got.URL != c.url || got.SecretName != c.secret[0] || got.SecretKey != c.secret[1] {
				t.Errorf("got %+v, want form %q url %q secret %v", got, c.form, c.url, c.secret)
			}
			if (c.retry == "") != (got.RetryMessage == "") || !strings.Contains(got.RetryMessage, c.retry) {
				t.Errorf("retry %q, want one containing %q", got.RetryMessage, c.retry)
			}
			if got.Written() == c.notWritten {
				t.Errorf("Written() = %v", got.Written())
			}
		})
	}
}

// queueRedisFacts answer one Workspace and the Secrets of its namespace.
type queueRedisFacts struct {
	NoFacts
	ws      *v1alpha1.Workspace
	secrets map[string]map[string]string // name → data
	values  bool                         // false: keys only (omniactl)
}

func (f queueRedisFacts) Workspace(ns string) (*v1alpha1.Workspace, bool) {
	if f.ws != nil && f.ws.Spec.Namespace.Name == ns {
		return f.ws, true
	}
	return nil, false
}

func (f queueRedisFacts) SecretKeys(ns, name string) ([]string, bool) {
	d, ok := f.secrets[name]
	if !ok || ns != f.ws.Spec.Namespace.Name {
		return nil, false
	}
	var keys []string
	for k := range d {
		keys = append(keys, k)
	}
	return keys, true
}

func (f queueRedisFacts) SecretValueMatches(ns, name, key string, match func([]byte) (string, bool)) (string, bool) {
	v, ok := f.secrets[name][key]
	if !ok || !f.values || ns != f.ws.Spec.Namespace.Name {
		return "", false
	}
	return match([]byte(v))
}

func TestArenaRunQueueRedisSecretFound(t *testing.T) {
	ws := func(r *v1alpha1.WorkspaceRedis) *v1alpha1.Workspace {
		return &v1alpha1.Workspace{Spec: v1alpha1.WorkspaceSpec{Namespace: v1alpha1.WorkspaceNamespace{Name: "arena"},
			Services: []v1alpha1.WorkspaceServiceGroup{{Name: "grp", Redis: r}}}}
	}
	existing := &v1alpha1.WorkspaceRedis{ExistingSecret: &v1alpha1.WorkspaceRedisSecretRef{Name: "redis-conn"}}
	good := map[string]map[string]string{"redis-conn": {"url": "redis://:pw@redis.arena.svc:6379/0"}}
	cases := []struct {
		name   string
		facts  queueRedisFacts
		pinned bool
		want   string // substring of the finding's message; "" for none
	}{
		{name: "Secret with a URL under url", facts: queueRedisFacts{ws: ws(existing), secrets: good, values: true}},
		{name: "keys only (omniactl)", facts: queueRedisFacts{ws: ws(existing), secrets: map[string]map[string]string{"redis-conn": {"url": "x"}}}},
		{name: "another form", facts: queueRedisFacts{ws: ws(&v1alpha1.WorkspaceRedis{Host: "r"})}},
		{name: "no workspace", facts: queueRedisFacts{ws: &v1alpha1.Workspace{Spec: v1alpha1.WorkspaceSpec{Namespace: v1alpha1.WorkspaceNamespace{Name: "elsewhere"}}}}},
		{name: "missing once pinned", facts: queueRedisFacts{ws: ws(existing)}, pinned: true},
		{name: "Secret missing", facts: queueRedisFacts{ws: ws(existing)}, want: `Secret "redis-conn", which does not exist`},
		{name: "key missing", facts: queueRedisFacts{ws: ws(existing), secrets: map[string]map[string]string{"redis-conn": {"REDIS_URL": "redis://r"}}},
			want: `has no key "url"`},
		{name: "named key missing", facts: queueRedisFacts{ws: ws(&v1alpha1.WorkspaceRedis{ExistingSecret: &v1alpha1.WorkspaceRedisSecretRef{Name: "redis-conn", Key: "REDIS_URL"}}), secrets: good},
			want: `has no key "REDIS_URL"`},
		{name: "not a redis URL", facts: queueRedisFacts{ws: ws(existing), secrets: map[string]map[string]string{"redis-conn": {"url": "http://r:6379"}}, values: true},
			want: "holds no redis:// or rediss:// URL"},
		{name: "a trailing newline", facts: queueRedisFacts{ws: ws(existing), secrets: map[string]map[string]string{"redis-conn": {"url": "redis://r:6379\n"}}, values: true},
			want: "holds no redis:// or rediss:// URL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := &v1alpha1.ArenaRun{ObjectMeta: metav1.ObjectMeta{Namespace: "arena", Name: "r"}}
			if c.pinned {
				run.Status.Queue = &v1alpha1.ArenaRunQueue{Source: v1alpha1.ArenaRunQueueServiceGroup}
			}
			var got []Finding
			for _, f := range Default.Evaluate(kindArenaRun, Input{Object: run, Facts: c.facts}, Options{}) {
				if f.RuleID == ArenaRunQueueRedisSecretRuleID {
					got = append(got, f)
				}
			}
			if c.want == "" {
				if len(got) != 0 {
					t.Fatalf("findings %+v, want none", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("findings %+v, want one", got)
			}
			f := got[0]
			if f.Condition != v1alpha1.ArenaRunConditionJobCreated || f.Reason != v1alpha1.ArenaRunReasonJobCreationFailed ||
				f.Field != "spec.template.serviceGroup" || !strings.Contains(f.Message, c.want) {
				t.Fatalf("finding %+v, want JobCreated/JobCreationFailed at spec.template.serviceGroup containing %q", f, c.want)
			}
			if strings.Contains(f.Message, "pw@") {
				t.Fatal("the Secret's value is in the message")
			}
		})
	}
}
