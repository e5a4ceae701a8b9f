package redisacl

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/altairalabs/omnia/test/redis"
)

const adminPassword = "admin-secret-5d1e"

func dial(t *testing.T, u string) *goredis.Client {
	t.Helper()
	opts, err := goredis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	c := goredis.NewClient(opts)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func connector(u string) (goredis.UniversalClient, error) {
	opts, err := goredis.ParseURL(u)
	if err != nil {
		return nil, err
	}
	return goredis.NewClient(opts), nil
}

func newProvisioner(t *testing.T) *Provisioner {
	t.Helper()
	p := NewProvisioner(connector, time.Hour)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// TestTenantCannotReachAnotherNamespace: the cross-tenant attack. With
// one shared URL, tenant A read tenant B's results; with its own
// credential, every key outside its namespace, the password hash and the
// server-wide commands answer NOPERM, while its own Arena and async keys
// (and the scripts the queue runs on them) work.
func TestTenantCannotReachAnotherNamespace(t *testing.T) {
	ctx := context.Background()
	srv := redis.StartWithPassword(t, adminPassword)
	p := newProvisioner(t)
	aURL, err := p.TenantURL(ctx, srv.URL(), "team-a")
	if err != nil {
		t.Fatal(err)
	}
	bURL, err := p.TenantURL(ctx, srv.URL(), "team-b")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(aURL, adminPassword) {
		t.Fatal("the tenant URL carries the admin's password")
	}
	if u, _ := url.Parse(aURL); u.User.Username() != "omnia-ns-team-a" {
		t.Fatalf("tenant URL user = %q", u.User.Username())
	}
	a, b := dial(t, aURL), dial(t, bURL)
	if err := b.HSet(ctx, "arena:{team-b/run}:counters", "completed", 3).Err(); err != nil {
		t.Fatalf("team-b writes its own run: %v", err)
	}

	allowed := []struct {
		name string
		run  func() error
	}{
		{"own arena key", func() error { return a.HSet(ctx, "arena:{team-a/run}:meta", "total", 1).Err() }},
		{"own async key", func() error { return a.RPush(ctx, AsyncKeyPrefix("team-a")+"agent:pending", "x").Err() }},
		{"script on own keys", func() error {
			return goredis.NewScript(`return redis.call('HINCRBY', KEYS[1], 'completed', 1)`).
				Run(ctx, a, []string{"arena:{team-a/run}:counters"}).Err()
		}},
		{"expire own key", func() error { return a.Expire(ctx, "arena:{team-a/run}:meta", time.Hour).Err() }},
	}
	for _, tc := range allowed {
		t.Run("allowed/"+tc.name, func(t *testing.T) {
			if err := tc.run(); err != nil {
				t.Errorf("team-a: %v", err)
			}
		})
	}
	refused := []struct {
		name string
		run  func() error
	}{
		{"read another namespace's results", func() error { return a.HGet(ctx, "arena:{team-b/run}:counters", "completed").Err() }},
		{"a namespace whose name starts with its own", func() error { return a.Get(ctx, "arena:{team-ab/run}:meta").Err() }},
		{"another namespace's async queue", func() error { return a.LPop(ctx, AsyncKeyPrefix("team-b")+"agent:pending").Err() }},
		{"the password hash", func() error { return a.HGetAll(ctx, PasswordsKey).Err() }},
		{"a script touching another namespace", func() error {
			return goredis.NewScript(`return redis.call('DEL', KEYS[1])`).Run(ctx, a, []string{"arena:{team-b/run}:counters"}).Err()
		}},
		{"KEYS", func() error { return a.Keys(ctx, "*").Err() }},
		{"FLUSHALL", func() error { return a.FlushAll(ctx).Err() }},
		{"ACL", func() error { return a.Do(ctx, "ACL", "LIST").Err() }},
		{"CONFIG", func() error { return a.ConfigGet(ctx, "*").Err() }},
		{"PUBLISH", func() error { return a.Publish(ctx, "arena:{team-a/run}:c", "x").Err() }},
	}
	for _, tc := range refused {
		t.Run("refused/"+tc.name, func(t *testing.T) {
			err := tc.run()
			if err == nil || !strings.HasPrefix(err.Error(), "NOPERM") {
				t.Errorf("team-a: %v, want NOPERM", err)
			}
		})
	}
	if n, err := b.HGet(ctx, "arena:{team-b/run}:counters", "completed").Int(); err != nil || n != 3 {
		t.Errorf("team-b's run after team-a's attempts: %d, %v", n, err)
	}
}

// TestReplicasAgree: two operators (a leader and the next) give a
// namespace the same password, so a leader change rewrites no Secret and
// rolls no pod; and the URL keeps the admin URL's host, database and TLS.
func TestReplicasAgree(t *testing.T) {
	ctx := context.Background()
	srv := redis.StartWithPassword(t, adminPassword)
	one, err := newProvisioner(t).TenantURL(ctx, srv.URL(), "team-a")
	if err != nil {
		t.Fatal(err)
	}
	two, err := newProvisioner(t).TenantURL(ctx, srv.URL(), "team-a")
	if err != nil {
		t.Fatal(err)
	}
	if one != two {
		t.Error("two provisioners gave team-a different credentials")
	}
	u, _ := url.Parse(one)
	if u.Host != srv.Addr || u.Path != "/0" || u.Scheme != "redis" {
		t.Errorf("tenant URL lost the admin URL's host, database or scheme: %s://%s%s", u.Scheme, u.Host, u.Path)
	}
	if err := dial(t, one).Ping(ctx).Err(); err != nil {
		t.Errorf("the second provisioner's URL does not authenticate: %v", err)
	}
}

// TestUserComesBack: a Redis that lost its ACL (restarted without an ACL
// file, or a user deleted by hand) gets the user again at the first
// Ensure past the refresh interval, with the same password.
func TestUserComesBack(t *testing.T) {
	ctx := context.Background()
	srv := redis.StartWithPassword(t, adminPassword)
	p := newProvisioner(t)
	now := time.Unix(1000, 0)
	p.now = func() time.Time { return now }
	first, err := p.TenantURL(ctx, srv.URL(), "team-a")
	if err != nil {
		t.Fatal(err)
	}
	if err := dial(t, srv.URL()).Do(ctx, "ACL", "DELUSER", Username("team-a")).Err(); err != nil {
		t.Fatal(err)
	}
	if again, _ := p.TenantURL(ctx, srv.URL(), "team-a"); again != first {
		t.Fatal("within the refresh interval the URL changed")
	}
	if err := dial(t, first).Ping(ctx).Err(); err == nil {
		t.Fatal("the deleted user still authenticates: the test proves nothing")
	}
	now = now.Add(2 * time.Hour)
	again, err := p.TenantURL(ctx, srv.URL(), "team-a")
	if err != nil || again != first {
		t.Fatalf("after the refresh interval: same URL %v, err %v", again == first, err)
	}
	if err := dial(t, first).Ping(ctx).Err(); err != nil {
		t.Errorf("the user was not set again: %v", err)
	}
}

// TestEnsureFailures: what cannot be provisioned says so, with the Redis
// reply's class and never a password or URL.
func TestEnsureFailures(t *testing.T) {
	ctx := context.Background()
	srv := redis.StartWithPassword(t, adminPassword)
	admin := dial(t, srv.URL())
	if err := admin.Do(ctx, "ACL", "SETUSER", "weak", "on", ">weak-pass-77", "~*", "+@all", "-acl").Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.HSet(ctx, PasswordsKey, "forged", "not-a-password").Err(); err != nil {
		t.Fatal(err)
	}
	weakURL := "redis://weak:weak-pass-77@" + srv.Addr + "/0"
	cases := []struct {
		name, adminURL, namespace, says string
	}{
		{"an admin without ACL rights", weakURL, "team-a", "ACL SETUSER omnia-ns-team-a: NOPERM"},
		{"not a namespace name", srv.URL(), "a/b", "is not a namespace name"},
		{"a pattern in the name", srv.URL(), "a*", "is not a namespace name"},
		{"a password the operator did not write", srv.URL(), "forged", "not one the operator wrote"},
		{"not a redis URL", "http://" + srv.Addr, "team-a", "not a redis:// or rediss:// URL"},
		{"wrong admin password", "redis://:nope@" + srv.Addr + "/0", "team-a", "WRONGPASS"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newProvisioner(t).TenantURL(ctx, tc.adminURL, tc.namespace)
			if !errors.Is(err, ErrNotProvisioned) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err = %v, want ErrNotProvisioned saying %q", err, tc.says)
			}
			for _, secret := range []string{adminPassword, "weak-pass-77", "nope"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error carries a password: %v", err)
				}
			}
		})
	}
}
