// Package redisacl gives each namespace its own credential on an
// operator-wide Redis: a Redis ACL user restricted to the namespace's own
// keys. Without it every namespace's workers and facades
// received the same URL and password, so any tenant could read, forge or
// delete another's queue and results.
//
// The operator holds the admin URL (--arena-queue-redis-url, the chart's
// redis.default); pods get the URL rewritten to the namespace's user. The
// user is created with ACL SETUSER on every Ensure past the refresh
// interval, so a Redis that restarted without its ACL comes back on the
// next reconcile. Its password is random, kept in one admin-only hash on
// the same Redis (HSETNX: every operator replica agrees on it), and never
// leaves the operator except inside the URL the pods' Secret holds.
//
// Redis only: no Kubernetes here (test/architecture).
package redisacl

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// UserPrefix is the prefix of every tenant user: the namespace follows.
const UserPrefix = "omnia-ns-"

// PasswordsKey is the hash (field: namespace, value: password) the tenant
// passwords are kept in. No tenant pattern covers it.
const PasswordsKey = "omnia:tenant-credentials"

// DefaultRefresh is how long an Ensure is remembered before the user is
// set again.
const DefaultRefresh = time.Minute

// MaxRemembered bounds the namespaces remembered at once; past it the
// memory is cleared (the next Ensure of each sets its user again).
const MaxRemembered = 4096

// Username is the namespace's Redis user.
func Username(namespace string) string { return UserPrefix + namespace }

// ArenaKeyPattern covers every key of every run of the namespace
// (arena/queue.KeyPrefix: arena:{<namespace>/<name>}:…). A namespace name
// cannot hold "/", so team-a's pattern never covers team-ab's keys.
func ArenaKeyPattern(namespace string) string { return "arena:{" + namespace + "/*" }

// AsyncKeyPrefix is the prefix of the namespace's async queue keys, which
// the facade is given as OMNIA_ASYNC_REDIS_KEY_PREFIX (docs/async.md). The
// braces are a Redis Cluster hash tag.
func AsyncKeyPrefix(namespace string) string { return "omnia:async:{" + namespace + "}:" }

// Rules are the ACL SETUSER rules of the namespace's user, password
// aside: reset first (so nothing an earlier version granted survives),
// then the namespace's key patterns, no Pub/Sub channel, and every command
// but the dangerous and administrative ones (KEYS, FLUSHALL, CONFIG, ACL,
// DEBUG). SELECT stays allowed: a URL naming a database sends it on every
// connection, and the key patterns hold in every database.
func Rules(namespace string) []string {
	return []string{
		"reset", "on",
		"~" + ArenaKeyPattern(namespace),
		"~" + AsyncKeyPrefix(namespace) + "*",
		"resetchannels",
		"+@all", "-@dangerous", "-@admin", "-@pubsub", "-function", "-script|flush",
	}
}

// Connect opens an admin client on a Redis URL (the operator passes
// arena/queue.ConnectWith with its egress dialer and reply guard).
type Connect func(url string) (redis.UniversalClient, error)

// Provisioner ensures namespaces' users on one operator-wide Redis at a
// time. It is safe for concurrent use.
type Provisioner struct {
	connect Connect
	refresh time.Duration
	now     func() time.Time

	mu       sync.Mutex
	adminURL string
	admin    redis.UniversalClient
	// ensured remembers, per namespace, the password and when its user
	// was set, for the admin URL above.
	ensured map[string]ensured
}

type ensured struct {
	password string
	at       time.Time
}

// NewProvisioner returns a Provisioner dialling through connect; refresh
// 0 is DefaultRefresh.
func NewProvisioner(connect Connect, refresh time.Duration) *Provisioner {
	if refresh <= 0 {
		refresh = DefaultRefresh
	}
	return &Provisioner{connect: connect, refresh: refresh, now: time.Now, ensured: map[string]ensured{}}
}

// ErrNotProvisioned wraps every failure of Ensure. Its message names the
// namespace's user and the Redis reply's class, never a URL or password.
var ErrNotProvisioned = errors.New("the namespace's Redis credential could not be set up")

// TenantURL ensures the namespace's user on the Redis of adminURL and
// returns adminURL with its user and password replaced by the
// namespace's. The admin's own credential is not in the result.
func (p *Provisioner) TenantURL(ctx context.Context, adminURL, namespace string) (string, error) {
	if _, err := withUser(adminURL, "", ""); err != nil {
		return "", err
	}
	pw, err := p.ensure(ctx, adminURL, namespace)
	if err != nil {
		return "", err
	}
	return withUser(adminURL, Username(namespace), pw)
}

func (p *Provisioner) ensure(ctx context.Context, adminURL, namespace string) (string, error) {
	if namespace == "" || strings.ContainsAny(namespace, " \t\r\n{}*?[]/") {
		return "", fmt.Errorf("%w: namespace %q is not a namespace name", ErrNotProvisioned, namespace)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.adminFor(adminURL); err != nil {
		return "", err
	}
	if e, ok := p.ensured[namespace]; ok && p.now().Sub(e.at) < p.refresh {
		return e.password, nil
	}
	pw, err := p.password(ctx, namespace)
	if err != nil {
		return "", err
	}
	args := []any{"ACL", "SETUSER", Username(namespace)}
	for _, r := range Rules(namespace) {
		args = append(args, r)
	}
	args = append(args, ">"+pw)
	if err := p.admin.Do(ctx, args...).Err(); err != nil {
		return "", fmt.Errorf("%w: ACL SETUSER %s: %s", ErrNotProvisioned, Username(namespace), replyClass(err))
	}
	if len(p.ensured) >= MaxRemembered {
		p.ensured = map[string]ensured{}
	}
	p.ensured[namespace] = ensured{password: pw, at: p.now()}
	return pw, nil
}

// password is the namespace's password: the one the hash holds, or a new
// random one written there first (HSETNX: a replica racing this one keeps
// the first).
func (p *Provisioner) password(ctx context.Context, namespace string) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotProvisioned, err)
	}
	if err := p.admin.HSetNX(ctx, PasswordsKey, namespace, hex.EncodeToString(b)).Err(); err != nil {
		return "", fmt.Errorf("%w: HSETNX %s: %s", ErrNotProvisioned, PasswordsKey, replyClass(err))
	}
	pw, err := p.admin.HGet(ctx, PasswordsKey, namespace).Result()
	if err != nil {
		return "", fmt.Errorf("%w: HGET %s: %s", ErrNotProvisioned, PasswordsKey, replyClass(err))
	}
	if len(pw) != 64 || strings.Trim(pw, "0123456789abcdef") != "" {
		// Only the operator's admin writes the hash; anything else in it
		// is not a password the operator made.
		return "", fmt.Errorf("%w: the password kept for %s is not one the operator wrote", ErrNotProvisioned, namespace)
	}
	return pw, nil
}

// adminFor makes p.admin the client of adminURL, closing the previous one
// (and forgetting what it ensured) when the URL changed.
func (p *Provisioner) adminFor(adminURL string) error {
	if p.admin != nil && p.adminURL == adminURL {
		return nil
	}
	if p.admin != nil {
		_ = p.admin.Close()
		p.admin = nil
	}
	c, err := p.connect(adminURL)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotProvisioned, err)
	}
	p.admin, p.adminURL, p.ensured = c, adminURL, map[string]ensured{}
	return nil
}

// Close closes the admin client.
func (p *Provisioner) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.admin == nil {
		return nil
	}
	err := p.admin.Close()
	p.admin = nil
	return err
}

// withUser is u with its userinfo set to user:password.
func withUser(u, user, password string) (string, error) {
	parsed, err := url.Parse(u)
	if err != nil || (parsed.Scheme != "redis" && parsed.Scheme != "rediss") || parsed.Host == "" {
		// The URL is a Secret value: never repeat it.
		return "", fmt.Errorf("%w: the operator's Redis URL is not a redis:// or rediss:// URL with a host", ErrNotProvisioned)
	}
	parsed.User = url.UserPassword(user, password)
	return parsed.String(), nil
}

// replyClass is the first word of a Redis error (NOPERM, ERR, WRONGPASS,
// ...) or "connection failed": never the rest, which may echo arguments.
func replyClass(err error) string {
	var re redis.Error
	if errors.As(err, &re) {
		if f := strings.Fields(re.Error()); len(f) > 0 {
			return f[0]
		}
	}
	return "connection failed"
}
