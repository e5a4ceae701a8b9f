package main

import (
	"errors"
	"flag"
	"net"
	"net/url"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/altairalabs/omnia/reconcile/agentruntime"
)

// asyncFlags are the async invocation queue (agentruntime.md §
// facades[].async): the chart's redis.default, given as exactly one of a
// url, a host, or an existingSecret in the operator's own namespace (key
// url). None: agents with async.enabled report AsyncInvocationReady False
// QueueBackendMissing.
type asyncFlags struct {
	redisURL            string
	redisHost           string
	redisExistingSecret string
}

func (f *asyncFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.redisURL, "async-redis-url", "",
		"redis:// or rediss:// URL of the async invocation queue (the chart's redis.default.url); it is given to the agent pods as "+
			"a literal variable, so prefer --async-redis-existing-secret when it carries a password")
	fs.StringVar(&f.redisHost, "async-redis-host", "",
		"host[:port] of the async invocation queue's Redis without credentials (the chart's redis.default.host; port 6379 by default)")
	fs.StringVar(&f.redisExistingSecret, "async-redis-existing-secret", "",
		"name of a Secret in the operator's namespace whose url key holds the async invocation queue's Redis URL "+
			"(the chart's redis.default.existingSecret); copied into agent-<name>-async-redis in each agent's namespace")
}

// asyncRedisDefaultPort is a host's port when it names none.
const asyncRedisDefaultPort = 6379

// apply sets the async queue's options; tenantCredentials is
// --redis-tenant-credentials.
func (f asyncFlags) apply(o *agentruntime.Options, tenantCredentials bool) error {
	a, err := asyncOptions(f.redisURL, f.redisHost, f.redisExistingSecret, ownNamespace())
	if err != nil {
		return err
	}
	if tenantCredentials && (a.URL != "" || a.ExistingSecret != nil) {
		// Process-lifetime: the AgentRuntime controller runs until
		// the operator exits.
		a.TenantCredentials = newTenantProvisioner("omnia-operator-async-acl")
	}
	o.Async = a
	return nil
}

// asyncOptions turns the --async-redis-* flags into the controller's
// options: at most one may be set. Errors never quote the URL (it may
// carry a password).
func asyncOptions(rawURL, host, existingSecret, namespace string) (agentruntime.AsyncOptions, error) {
	set := 0
	for _, v := range []string{rawURL, host, existingSecret} {
		if v != "" {
			set++
		}
	}
	if set > 1 {
		return agentruntime.AsyncOptions{}, errors.New("set at most one of --async-redis-url, --async-redis-host and --async-redis-existing-secret")
	}
	switch {
	case rawURL != "":
		u, err := url.Parse(rawURL)
		if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" || strings.TrimSpace(rawURL) != rawURL {
			return agentruntime.AsyncOptions{}, errors.New("--async-redis-url: want a redis:// or rediss:// URL with a host")
		}
		return agentruntime.AsyncOptions{URL: rawURL}, nil
	case host != "":
		hostPort := host
		if _, _, err := net.SplitHostPort(host); err != nil {
			hostPort = net.JoinHostPort(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), strconv.Itoa(asyncRedisDefaultPort))
		}
		u, err := url.Parse("redis://" + hostPort)
		if err != nil || u.Host != hostPort || u.User != nil || u.Hostname() == "" || u.Path != "" {
			return agentruntime.AsyncOptions{}, errors.New("--async-redis-host: want host[:port], without a scheme, credentials or path")
		}
		return agentruntime.AsyncOptions{URL: u.String()}, nil
	case existingSecret != "":
		if errs := validation.IsDNS1123Subdomain(existingSecret); len(errs) > 0 {
			return agentruntime.AsyncOptions{}, errors.New("--async-redis-existing-secret " + strconv.Quote(existingSecret) + ": " + strings.Join(errs, "; "))
		}
		return agentruntime.AsyncOptions{ExistingSecret: &types.NamespacedName{Namespace: namespace, Name: existingSecret}}, nil
	}
	return agentruntime.AsyncOptions{}, nil
}
