package rules

import (
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ArenaRunQueueRedisForm names where a service group's Redis URL comes from:
// the field of the group's redis that is set.
type ArenaRunQueueRedisForm string

// The forms of a service group's redis (workspace services[].redis).
const (
	ArenaRunQueueRedisURL            ArenaRunQueueRedisForm = "url"
	ArenaRunQueueRedisHost           ArenaRunQueueRedisForm = "host"
	ArenaRunQueueRedisServiceRef     ArenaRunQueueRedisForm = "serviceRef"
	ArenaRunQueueRedisExistingSecret ArenaRunQueueRedisForm = "existingSecret"
)

// Defaults of a service group's redis.
const (
	// ArenaRunQueueRedisDefaultPort is the port of a host without one and of
	// a serviceRef without one.
	ArenaRunQueueRedisDefaultPort = 6379
	// ArenaRunQueueRedisDefaultSecretKey is existingSecret's key when it
	// names none; also the key of the run-owned <run>-queue-redis.
	ArenaRunQueueRedisDefaultSecretKey = "url"
)

// ArenaRunQueueRedisSource is where an ArenaRun's queue URL comes from when
// its service group sets a redis (arenajob.md § status.queue).
type ArenaRunQueueRedisSource struct {
	// Form is the group's redis form; empty when RetryMessage is set.
	Form ArenaRunQueueRedisForm
	// URL is what the controller writes into the run-owned Secret
	// <run>-queue-redis (forms url, host and serviceRef). For url it is the
	// group's URL as written, which may hold a password: a Secret value,
	// never in status, events or logs. Empty for existingSecret.
	URL string
	// SecretName and SecretKey name the group's own Secret (existingSecret):
	// status.queue.secretRef points at it directly and nothing is written.
	SecretName, SecretKey string
	// RetryMessage says why no URL can be had: the run cannot create its Job
	// (JobCreated=False, JobCreationFailed) and is retried with backoff.
	RetryMessage string
}

// Written reports whether the controller writes <run>-queue-redis for the
// source (every form but existingSecret).
func (s ArenaRunQueueRedisSource) Written() bool {
	return s.RetryMessage == "" && s.Form != ArenaRunQueueRedisExistingSecret
}

// ArenaRunQueueRedis decides where the queue URL of a run of group comes
// from: the one place the forms of a group's redis are read. wsNamespace is
// the workspace's namespace (spec.namespace.name), the default of
// serviceRef.namespace.
//
//   - url → written to <run>-queue-redis as is;
//   - host → redis://<host>:<port, default 6379> (rediss:// with tls);
//   - serviceRef → redis://<name>.<namespace>.svc:<port, default 6379>
//     (rediss:// with tls);
//   - existingSecret → the group's Secret and key (default url), read where
//     it is; nothing written.
//
// A group with no redis, with none of the four (a managed Redis, which this
// operator does not run), or with more than one (refused by the schema rule
// workspace/redis-one-source, so only an object stored before it) gets a
// RetryMessage.
func ArenaRunQueueRedis(group *v1alpha1.WorkspaceServiceGroup, wsNamespace string) ArenaRunQueueRedisSource {
	if group == nil || group.Redis == nil {
		return ArenaRunQueueRedisSource{RetryMessage: "the service group sets no redis"}
	}
	r := group.Redis
	var set []string
	if r.URL != "" {
		set = append(set, "url")
	}
	if r.Host != "" {
		set = append(set, "host")
	}
	if r.ServiceRef != nil {
		set = append(set, "serviceRef")
	}
	if r.ExistingSecret != nil {
		set = append(set, "existingSecret")
	}
	name := strconv.Quote(group.Name)
	switch {
	case len(set) == 0:
		return ArenaRunQueueRedisSource{RetryMessage: "service group " + name +
			"'s redis sets none of url, host, serviceRef and existingSecret (a managed redis is not run by this operator yet)"}
	case len(set) > 1:
		return ArenaRunQueueRedisSource{RetryMessage: "service group " + name + "'s redis sets " + strings.Join(set, " and ") +
			"; keep one of url, host, serviceRef and existingSecret"}
	}
	scheme := "redis://"
	if r.TLS {
		scheme = "rediss://"
	}
	switch {
	case r.URL != "":
		return ArenaRunQueueRedisSource{Form: ArenaRunQueueRedisURL, URL: r.URL}
	case r.Host != "":
		return ArenaRunQueueRedisSource{Form: ArenaRunQueueRedisHost, URL: scheme + redisHostPort(r.Host)}
	case r.ServiceRef != nil:
		ref := r.ServiceRef
		ns := ref.Namespace
		if ns == "" {
			ns = wsNamespace
		}
		if ref.Name == "" || ns == "" {
			return ArenaRunQueueRedisSource{RetryMessage: "service group " + name + "'s redis.serviceRef names no Service or no namespace"}
		}
		port := ref.Port
		if port == 0 {
			port = ArenaRunQueueRedisDefaultPort
		}
		return ArenaRunQueueRedisSource{Form: ArenaRunQueueRedisServiceRef,
			URL: scheme + net.JoinHostPort(ref.Name+"."+ns+".svc", strconv.Itoa(int(port)))}
	default:
		key := r.ExistingSecret.Key
		if key == "" {
			key = ArenaRunQueueRedisDefaultSecretKey
		}
		return ArenaRunQueueRedisSource{Form: ArenaRunQueueRedisExistingSecret, SecretName: r.ExistingSecret.Name, SecretKey: key}
	}
}

// redisHostPort adds the default port to a host[:port] that has none.
func redisHostPort(host string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	return net.JoinHostPort(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), strconv.Itoa(ArenaRunQueueRedisDefaultPort))
}

// ArenaRunQueueRedisSecretRuleID holds back the Job of a run whose group's
// redis.existingSecret is missing, lacks its key, or holds no Redis URL.
const ArenaRunQueueRedisSecretRuleID = "arenarun/queue-redis-secret-found"

func init() {
	// The schema's rules on a service group's redis (CEL on
	// v1alpha1.WorkspaceRedis); the Workspace reference page is not part of
	// this repository's spec, so they point at the queue they feed.
	for _, r := range []Rule{
		{ID: "workspace/redis-one-source",
			Doc: "A service group's redis sets at most one of url, host, serviceRef and existingSecret (none: a managed Redis)."},
		{ID: "workspace/redis-tls-needs-address",
			Doc: "redis.tls is set only with host or serviceRef; a url or an existingSecret's URL chooses TLS with its scheme (rediss://)."},
	} {
		r.Kinds = []string{"Workspace"}
		r.Stage = StageAdmission
		r.Severity = SeverityDeny
		r.Source = SourceSchema
		r.Spec = "arenajob.md#queue"
		Default.Register(r)
	}
	Default.Register(Rule{
		ID:        ArenaRunQueueRedisSecretRuleID,
		Kinds:     []string{kindArenaRun},
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ArenaRunConditionJobCreated,
		Reason:    v1alpha1.ArenaRunReasonJobCreationFailed,
		Doc: "A run whose service group's redis is an existingSecret needs that Secret, in the workspace's namespace, holding a " +
			"redis:// or rediss:// URL under its key (default url) before its queue is pinned. Otherwise the worker Job is not created " +
			"(JobCreated=False, reason JobCreationFailed) and the controller retries with backoff. Once the queue is pinned the rule " +
			"no longer applies: the run keeps its queue.",
		Spec:  "arenajob.md#queue",
		Check: checkArenaRunQueueRedisSecret,
	})
}

var arenaRunServiceGroupPath = field.NewPath("spec", "template", "serviceGroup")

func checkArenaRunQueueRedisSecret(in Input) field.ErrorList {
	run, ok := in.Object.(*v1alpha1.ArenaRun)
	// A pinned queue stays where it is; a run started before status.queue
	// existed is pinned to Default.
	if !ok || run == nil || run.Status.Queue != nil || run.Status.StartTime != nil {
		return nil
	}
	ws, found := in.Facts.Workspace(run.Namespace)
	if !found {
		return nil
	}
	gr := ArenaRunServiceGroup(&run.Spec.Template, ws)
	if gr.Group == nil || gr.Group.Redis == nil {
		return nil
	}
	src := ArenaRunQueueRedis(gr.Group, ws.Spec.Namespace.Name)
	if src.Form != ArenaRunQueueRedisExistingSecret {
		return nil
	}
	what := "service group " + strconv.Quote(gr.Group.Name) + "'s redis.existingSecret"
	keys, found := in.Facts.SecretKeys(run.Namespace, src.SecretName)
	switch {
	case !found:
		return field.ErrorList{field.Invalid(arenaRunServiceGroupPath, gr.Group.Name,
			what+" names Secret "+strconv.Quote(src.SecretName)+", which does not exist in "+namespaceText(run.Namespace)+
				": the run's worker Job is not created until it does; create it with the Redis URL under key "+strconv.Quote(src.SecretKey))}
	case !slices.Contains(keys, src.SecretKey):
		return field.ErrorList{field.Invalid(arenaRunServiceGroupPath, gr.Group.Name,
			what+" names Secret "+strconv.Quote(src.SecretName)+", which has no key "+strconv.Quote(src.SecretKey)+
				": the run's worker Job is not created until it does; add the Redis URL under that key or set existingSecret.key")}
	}
	if label, ok := in.Facts.SecretValueMatches(run.Namespace, src.SecretName, src.SecretKey, redisURLShape); ok && label != "redis-url" {
		return field.ErrorList{field.Invalid(arenaRunServiceGroupPath, gr.Group.Name,
			what+": key "+strconv.Quote(src.SecretKey)+" of Secret "+strconv.Quote(src.SecretName)+
				" holds no redis:// or rediss:// URL with a host (the value is used exactly: no surrounding whitespace or newline): the run's worker Job is not created until it does")}
	}
	return nil
}

// redisURLShape labels a Secret value: "redis-url" for a redis:// or
// rediss:// URL with a host, "other" for anything else (a trailing newline
// included: the workers read the value exactly). Only the label
// leaves: never the value.
func redisURLShape(v []byte) (string, bool) {
	u, err := url.Parse(string(v))
	if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
		return "other", true
	}
	return "redis-url", true
}
